import { describe, expect, test } from "bun:test";
import { badQueryField, firstBadString, refuseIllFormedText } from "../../src/http/text-encoding.ts";
import { ValidationFailedError } from "../../src/core/errors.ts";

describe("badQueryField: the query parameter whose escapes are not UTF-8", () => {
  const cases: [string, string | null][] = [
    ["/api/tasks", null],
    ["/api/tasks?search=plain&page=2", null],
    // Escapes of ASCII alone are always UTF-8; lower-case hex is an escape too.
    ["/api/tasks?search=lecture%201&folder=a%2Fb%7E", null],
    ["/api/tasks?search=%ff", "search"],
    ["/api/tasks?search=%20%c3", "search"],
    ["/api/tasks?search=%E4%BC%9A%E8%AE%AE", null],
    ["/api/tasks?search=%F0%9F%98%80", null],
    // A `%` not followed by two hex digits is taken literally, as WHATWG URLs take it.
    ["/api/tasks?search=100%", null],
    ["/api/tasks?search=%zz%E2%82%AC", null],
    ["/api/tasks?search=%FF%FE", "search"],
    ["/api/tasks?page=1&search=%C3", "search"],
    ["/api/tasks?search=%ED%A0%80", "search"], // an encoded surrogate
    ["/api/tasks?search=%F4%90%80%80", "search"], // past U+10FFFF
    ["/api/tasks?search=%C0%AF", "search"], // overlong "/"
    ["/api/tasks?per%5Fpage=%FF", "per_page"],
    ["/api/tasks?a+b=%FF", "a b"],
    ["/api/tasks?%FF=1", "query"],
    ["/api/tasks?%FF", "query"],
    ["/api/tasks?x=1#%FF", null],
  ];
  for (const [url, field] of cases) test(`${url} → ${field}`, () => expect(badQueryField(url)).toBe(field));
});

describe("firstBadString: the path of a string with a lone surrogate", () => {
  test("well-formed values, surrogate pairs included, have none", () => {
    expect(firstBadString({ a: "ok", b: ["😀", { c: "\ud83d\ude00" }], n: 1, z: null })).toBeNull();
  });
  test("a string names its own path; a key its object's; the top level `body`", () => {
    expect(firstBadString("\ud800")).toBe("body");
    expect(firstBadString({ name: "a\udc00" })).toBe("name");
    expect(firstBadString({ segments: [{ text: "ok" }, { text: "\ud800x" }] })).toBe("segments.1.text");
    expect(firstBadString({ meta: { "\ud800": 1 } })).toBe("meta");
    expect(firstBadString({ "\udbff": 1 })).toBe("body");
    expect(firstBadString(["ok", "\ud800"])).toBe("1");
  });
});

describe("refuseIllFormedText", () => {
  test("throws the 422 naming the field, with a message that says why", () => {
    const text = '{"name":"\\ud800"}';
    let thrown: unknown;
    try {
      refuseIllFormedText(text, JSON.parse(text));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ValidationFailedError);
    expect((thrown as ValidationFailedError).errors).toEqual({ name: ["The name field must be valid UTF-8 text: it holds a lone UTF-16 surrogate."] });
  });
  test("a text without a surrogate escape is not walked", () => {
    // The value would be refused; the text says it cannot hold one (it came from UTF-8 bytes), so it is not looked at.
    expect(() => refuseIllFormedText('{"name":"ok"}', { name: "\ud800" })).not.toThrow();
    expect(() => refuseIllFormedText('{"name":"\\ud83d\\ude00"}', { name: "😀" })).not.toThrow();
  });
});
