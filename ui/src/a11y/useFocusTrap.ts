// Keeps the keyboard focus inside a dialog while it is open and gives it back when it closes (the `focus-trap`
// package: Tab and Shift+Tab cycle inside, a click outside moves nothing). Traps nest: one opened inside another
// pauses the outer one until it closes. Escape is the dialog's own business (each closes itself its own way).
import { createFocusTrap } from "focus-trap";
import { useEffect, useRef, type RefObject } from "react";

export interface FocusTrapOptions {
  /** Where focus goes on opening (default the container itself, which needs tabIndex -1). */
  initialFocus?: () => HTMLElement | null;
  /**
   * Where focus goes on closing, for a dialog whose opener does not keep the focus (a button replaced by the
   * confirmation it opened, or disabled while its panel is open); default the element focused before opening.
   */
  returnFocus?: () => HTMLElement | null;
}

export function useFocusTrap(container: RefObject<HTMLElement | null>, options: FocusTrapOptions = {}): void {
  // The latest callbacks, read when the dialog opens and when it closes.
  const latest = useRef(options);
  latest.current = options;
  useEffect(() => {
    const element = container.current;
    if (element === null) return;
    const trap = createFocusTrap(element, {
      initialFocus: () => latest.current.initialFocus?.() ?? element,
      fallbackFocus: element,
      escapeDeactivates: false,
      clickOutsideDeactivates: false,
      allowOutsideClick: true,
      // Synchronous, so a key pressed right after opening already lands inside.
      delayInitialFocus: false,
      // Also synchronous: the focus is back where it belongs the moment the dialog is gone, not one timer later
      // (until then the resumed outer trap holds it on its own container).
      delayReturnFocus: false,
      setReturnFocus: (previous) => {
        const chosen = latest.current.returnFocus?.() ?? null;
        if (chosen !== null) return chosen;
        return previous instanceof HTMLElement && previous.isConnected ? previous : false;
      },
    });
    trap.activate();
    return () => {
      trap.deactivate();
    };
  }, [container]);
}
