// A settings section's stored value: read once when the panel opens, saved on demand and replaced by what the host
// answers it keeps now; while a save is on its way `saving` holds, and a failure is kept to show (the stored value
// stays as it was).
import { useCallback, useEffect, useState } from "react";

import { toCommandError } from "../../ipc/backend";
import type { CommandError } from "../../ipc/wire";

export interface StoredSection<T> {
  /** What the host keeps; null until read. */
  value: T | null;
  /** Changes the shown value without saving it (a form being filled). */
  edit: (value: T) => void;
  save: (value: T) => Promise<boolean>;
  saving: boolean;
  error: CommandError | null;
}

export function useStoredSection<T>(load: () => Promise<T>, store: (value: T) => Promise<T>): StoredSection<T> {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<CommandError | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    let current = true;
    load().then(
      (loaded) => {
        if (current) setValue(loaded);
      },
      (failure: unknown) => {
        if (current) setError(toCommandError(failure));
      },
    );
    return () => {
      current = false;
    };
    // Read once, when the section appears.
  }, []);

  const save = useCallback(
    (next: T) => {
      setSaving(true);
      setError(null);
      return store(next).then(
        (stored) => {
          setSaving(false);
          setValue(stored);
          return true;
        },
        (failure: unknown) => {
          setSaving(false);
          setError(toCommandError(failure));
          return false;
        },
      );
    },
    [store],
  );

  return { value, edit: setValue, save, saving, error };
}
