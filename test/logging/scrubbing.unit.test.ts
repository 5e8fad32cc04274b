import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { loggableUrl, mayHoldPattern, scrubber, scrubbers } from "../../src/logging/scrubbing.ts";

const scrub = scrubber(["configured-secret-value", 'with"quote\\slash']);

describe("scrubbing a log line", () => {
  test.each([
    [
      "an S3 presigned URL keeps its path, not its query",
      "GET https://s3.example/b/k?X-Amz-Signature=abc&X-Amz-Credential=def x",
      "GET https://s3.example/b/k?[REDACTED] x",
    ],
    ["the embedded store's signed URL", '"url":"http://h:3000/storage/m/1.wav?expires=9&signature=s1g"', '"url":"http://h:3000/storage/m/1.wav?[REDACTED]"'],
    [
      "a signed query in a relative URL",
      "/storage/m/1.wav?uploadId=u&expires=9&signature=s1g",
      "/storage/m/1.wav?uploadId=u&expires=[REDACTED]&signature=[REDACTED]",
    ],
    ["a password in a connection URL", "mongodb://scribe:pa55word@db:27017/scribe", "mongodb://scribe:[REDACTED]@db:27017/scribe"],
    ["a bearer token", "authorization: Bearer abc.def-ghi", "authorization: Bearer [REDACTED]"],
    ["an access token", "token scr_0123456789abcdefghijklmnopqrstuv used", "token scr_[REDACTED] used"],
    ["an API key", "key sk_0123456789abcdefghijklmnopqrstuv", "key sk_[REDACTED]"],
    ["a web app session's secret", "cookie scribe_session=scs_0123456789abcdefghijklmnopqrstuv", "cookie scribe_session=scs_[REDACTED]"],
    ["a password hash", "hash $argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA end", "hash [REDACTED] end"],
    ["a configured secret", "secret configured-secret-value here", "secret [REDACTED] here"],
    ["a configured secret as JSON escapes it", JSON.stringify({ v: 'with"quote\\slash' }), '{"v":"[REDACTED]"}'],
  ])("%s", (_, line, expected) => {
    expect(scrub(line)).toBe(expected);
  });

  test("leaves ordinary lines alone: the API key's public prefix, plan names, paths, ids", () => {
    const line = '{"msg":"request","route":"/api/tasks/:id","prefix":"sk_AbC1234","plan":"Basic plan","url":"http://h/api/tasks"}';
    expect(scrub(line)).toBe(line);
  });

  test("a scrubbed JSON line is still JSON", () => {
    const line = JSON.stringify({ err: { message: 'fetch "https://x/y?X-Amz-Signature=1" failed', stack: "at https://x/y?sig=2\n" } });
    expect(() => JSON.parse(scrub(line))).not.toThrow();
  });

  test("a URL to log loses its query and any password", () => {
    expect(loggableUrl("https://user:pw@media.example/a.mp3?X-Amz-Signature=1#t")).toBe("https://user:%5BREDACTED%5D@media.example/a.mp3?[REDACTED]");
    expect(loggableUrl("http://localhost:3000/api/billing/webhook")).toBe("http://localhost:3000/api/billing/webhook");
  });
});

describe("the quick test before the patterns", () => {
  // Texts made of the pieces the patterns look for, so that many of them match one: whenever any pattern matches,
  // the quick test must too, or a secret would be written as it is.
  const pieces = ["https://", "h", "?", "&", "a=", "token=", "signature=", "Bearer ", "BASIC ", "Basic ", "scr_", "sk_", "scs_"];
  const more = ["0123456789abcdef", "$argon2id$v=19$", "$2b$12$", "x", ":", "@", "/", " ", '"', "u:p@"];
  const text = fc.array(fc.constantFrom(...pieces, ...more), { maxLength: 12 }).map((parts) => parts.join(""));

  test("is true of every text any pattern matches", () => {
    fc.assert(
      fc.property(text, (line) => {
        const matched = scrubbers.some(([pattern]) => new RegExp(pattern.source, pattern.flags.replace("g", "")).test(line));
        if (matched) expect(mayHoldPattern.test(line)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  test("lets a request's line through untouched", () => {
    const line = '{"level":"info","reqId":"4a64c0fa-e79d-4857-952d-596fbb43d70b","route":"/api/tasks/:id","status":200,"msg":"request"}';
    expect(mayHoldPattern.test(line)).toBe(false);
    expect(scrub(line)).toBe(line);
  });
});
