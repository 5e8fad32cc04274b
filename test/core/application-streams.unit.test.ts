/**
 * In a shared EventStoreDB the relay and the projections read only the streams whose names begin with one of
 * applicationStreamPrefixes: a stream family left out would be written and never projected or relayed. The
 * stream builders found in the code must all be covered, and the subscription's filter asks for exactly those.
 */
import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { STREAM_NAME, EVENT_TYPE } from "@eventstore/db-client";
import { applicationStreamPrefixes } from "../../src/application-streams.ts";
import { allStreamFilter } from "../../src/eventstore/eventstoredb.ts";

const root = join(import.meta.dir, "../..");

/** Where the code names a stream: `xStream = (…) => \`name-${…}\``, `xStream = "name"`, or `append(\`name-${…}\``. */
const streamNamings = [/(\w+Stream)\s*=\s*\([^)]*\)\s*=>\s*`([^`$]*)\$\{/g, /(\w+Stream)\s*=\s*"([^"]*)"/g, /(append)\(\s*`([^`$]*)\$\{/g];

function streamsNamedInCode(): { file: string; name: string; start: string }[] {
  const found: { file: string; name: string; start: string }[] = [];
  for (const file of new Glob("src/**/*.ts").scanSync(root)) {
    if (file.startsWith("src/web/")) continue;
    const text = readFileSync(join(root, file), "utf8");
    for (const pattern of streamNamings) for (const match of text.matchAll(pattern)) found.push({ file, name: match[1]!, start: match[2]! });
  }
  return found;
}

describe("this application's streams", () => {
  test("every stream the code names begins with one of the prefixes the event store filters on", () => {
    const named = streamsNamedInCode();
    // The scan finds the builders (a change to how they are written must not make it find nothing).
    expect(named.map((stream) => stream.name)).toEqual(expect.arrayContaining(["taskStream", "userStream", "tokenLifetimeStream", "append"]));
    const uncovered = named.filter((stream) => !applicationStreamPrefixes.some((prefix) => stream.start.startsWith(prefix)));
    expect(uncovered).toEqual([]);
  });

  test("a subscription asks the server for those streams only; without prefixes, for every event but the system's", () => {
    expect(allStreamFilter(["task-", "user-"])).toMatchObject({ filterOn: STREAM_NAME, prefixes: ["task-", "user-"] });
    expect(allStreamFilter(null)).toMatchObject({ filterOn: EVENT_TYPE, regex: "^[^$].*" });
  });
});
