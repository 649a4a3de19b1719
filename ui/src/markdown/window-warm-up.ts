// The first answer after the window opens finds cold what the window does to show Markdown: the engine has not
// compiled the sanitiser's code, and the fonts and styles of bold text, code, headings and tables were never
// resolved (fontconfig matches each new face on first use). So once the render worker has warmed up, the window
// runs its part too on the worker's sample blocks: a few sanitiser rounds, each a short task of its own, and one
// layout of the sample off screen, which it then removes.
import { sanitizeBlockElements } from "./sanitize";

/** How many times the sample is sanitised, one task each. */
const SANITISE_ROUNDS = 24;

/** Warms the window up on `blocks` (the warm-up sample as the renderer made it, not sanitised). */
export function warmUpWindow(blocks: readonly string[]): void {
  let left = SANITISE_ROUNDS;
  const round = () => {
    const elements = sanitizeBlockElements(blocks);
    left -= 1;
    if (left > 0) setTimeout(round, 0);
    else layOutOffScreen(elements);
  };
  setTimeout(round, 0);
}

/** Lays `elements` out once in an invisible Markdown view outside the viewport, then removes it. */
function layOutOffScreen(elements: readonly Element[]): void {
  const view = document.createElement("div");
  view.className = "markdown";
  view.setAttribute("aria-hidden", "true");
  view.style.position = "absolute";
  view.style.left = "-10000px";
  view.style.top = "0";
  view.style.width = "640px";
  view.style.visibility = "hidden";
  view.append(...elements);
  document.body.append(view);
  // Reading a size lays the view out now, in this task.
  void view.offsetHeight;
  view.remove();
}
