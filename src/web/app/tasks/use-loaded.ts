import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiError } from "../api.ts";

/** What useLoaded holds: the latest value, why the latest load failed, and whether the value is for an older key. */
export type Loaded<T> = { value: T | null; problem: string | null; stale: boolean; reload: () => void };

/**
 * Loads `load()` again whenever `key` changes or `reload()` is called; an answer to an older load is dropped. The
 * older value stays on screen meanwhile (no flicker), marked `stale` until the answer for `key` arrives.
 */
export function useLoaded<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<{ value: T | null; problem: string | null; key: string | null }>({ value: null, problem: null, key: null });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    load().then(
      (value) => current && setState({ value, problem: null, key }),
      (error: unknown) => current && setState((now) => ({ value: now.value, problem: ApiError.of(error).message, key })),
    );
    return () => {
      current = false;
    };
  }, [key, round]);
  return { value: state.value, problem: state.problem, stale: state.key !== key, reload: useCallback(() => setRound((r) => r + 1), []) };
}
