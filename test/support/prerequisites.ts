import { test } from "bun:test";

/**
 * What a test file needs from the machine: a program, a font, a clip of ../shared/testdata. `npm test` installs
 * what Debian has (scripts/setup.sh --test), so in CI (CI=true) a missing prerequisite is a broken setup: it fails
 * the run with its name, as a failing test. Elsewhere the tests that need it skip, and a SKIPPED line says what is
 * missing and how to get it (scripts/test.sh repeats those lines at the end).
 *
 * Use at a file's top level: `describe.skipIf(!prerequisite("Chromium", existsSync(path), "apt-get install chromium"))`.
 */
export function prerequisite(what: string, available: boolean, howToGetIt: string): boolean {
  if (available) return true;
  if (process.env.CI === "true") {
    test(`prerequisite: ${what}`, () => {
      throw new Error(`${what} is missing (${howToGetIt}); in CI every prerequisite but the servers and model no build machine has must be there`);
    });
  } else {
    console.log(`SKIPPED: ${what} is missing (${howToGetIt}); the tests that need it do not run`);
  }
  return false;
}

/**
 * The only skips CI accepts: a server or model that cannot be had on the build machines (EventStoreDB, MongoDB,
 * a whisper model), each one skipped test. Its line is counted by scripts/test.sh, which fails a CI run with more
 * skipped tests than such lines.
 */
export function knownSkip(what: string): void {
  console.log(`SKIPPED (known): ${what}`);
}
