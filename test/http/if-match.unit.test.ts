import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { parseIfMatch, revisionCondition, revisionTag } from "../../src/http/if-match.ts";
import { PreconditionFailedError, ValidationFailedError } from "../../src/core/errors.ts";

describe("parseIfMatch (RFC 9110 13.1.1)", () => {
  test("* alone, with optional whitespace", () => {
    expect(parseIfMatch("*")).toEqual({ kind: "any" });
    expect(parseIfMatch(" \t* ")).toEqual({ kind: "any" });
  });

  test("a list of strong and weak tags; commas may be inside a tag; empty elements are skipped", () => {
    expect(parseIfMatch('"7", W/"8",,\t"a,b" ,')).toEqual({
      kind: "tags",
      tags: [
        { weak: false, opaque: "7" },
        { weak: true, opaque: "8" },
        { weak: false, opaque: "a,b" },
      ],
    });
    expect(parseIfMatch('""')).toEqual({ kind: "tags", tags: [{ weak: false, opaque: "" }] });
  });

  test("anything else is malformed", () => {
    for (const value of ["", " ", ",", "7", '"7', '7"', 'w/"7"', 'W/ "7"', '"7" "8"', '"7";q=1', '*, "7"', '"a b"', '"\u0001"', "**"]) {
      expect(parseIfMatch(value)).toHaveProperty("problem");
    }
  });

  test("every list of tags it is given back reads as those tags", () => {
    const tag = fc.record({ weak: fc.boolean(), opaque: fc.stringMatching(/^[\x21\x23-\x7e]{0,12}$/) });
    fc.assert(
      fc.property(fc.array(tag, { minLength: 1, maxLength: 8 }), fc.constantFrom(",", ", ", " ,\t", ",,"), (tags, separator) => {
        const header = tags.map((t) => `${t.weak ? "W/" : ""}"${t.opaque}"`).join(separator);
        expect(parseIfMatch(header)).toEqual({ kind: "tags", tags });
      }),
    );
  });
});

describe("revisionCondition", () => {
  test("no header and * set no condition; a malformed header is a 422 on If-Match", () => {
    expect(revisionCondition(null, "stale")).toBeNull();
    expect(revisionCondition("*", "stale")).toBeNull();
    expect(() => revisionCondition("7", "stale")).toThrow(ValidationFailedError);
  });

  const at = (revision: number, shown = revision) => ({ shown, revision });

  test("matches the revision a strong tag names, and nothing else", () => {
    const condition = revisionCondition(`"x", ${revisionTag(7)}`, "stale")!;
    expect(() => condition(at(7))).not.toThrow();
    expect(() => condition(at(8))).toThrow(PreconditionFailedError);
    expect(() => revisionCondition('"07"', "stale")!(at(7))).toThrow("stale");
    expect(() => revisionCondition(`W/${revisionTag(7)}`, "stale")!(at(7))).toThrow(/weak/);
  });

  test("matches any revision from the last change shown up to the stream's: only bookkeeping came after it", () => {
    const condition = (tag: number) => revisionCondition(revisionTag(tag), "stale")!;
    for (const tag of [5, 6, 7]) expect(() => condition(tag)(at(7, 5))).not.toThrow();
    for (const tag of [4, 8]) expect(() => condition(tag)(at(7, 5))).toThrow(PreconditionFailedError);
  });
});
