/**
 * PocketSphinx as a prerequisite of the live engine's tests: its library must load (bun:ffi), beside whatever else a
 * file needs of it. Apart from prerequisites.ts so that only these files load sphinx-library.ts.
 */
import { sphinxLibrary } from "../../src/live/engines/sphinx-library.ts";
import { prerequisite } from "./prerequisites.ts";

const libraryLoads = (): boolean => {
  try {
    sphinxLibrary();
    return true;
  } catch {
    return false;
  }
};

/** `prerequisite` for PocketSphinx: available when its library loads and `alsoAvailable` (its model, its program) holds. */
export function sphinxPrerequisite(what: string, alsoAvailable: boolean, howToGetIt: string): boolean {
  return prerequisite(what, libraryLoads() && alsoAvailable, howToGetIt);
}
