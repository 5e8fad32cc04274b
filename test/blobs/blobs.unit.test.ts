import { describe, expect, test } from "bun:test";
import { attachmentDisposition } from "../../src/blobs/content-disposition.ts";
import { signedQuery, verifySignedQuery, type SignedGrant } from "../../src/blobs/signing.ts";

describe("signed storage URLs", () => {
  const now = 1_700_000_000_000;
  const grant: SignedGrant = { method: "PUT", key: "u/1/a.mp3", uploadId: "ab".repeat(16), partNumber: 3, expires: now / 1000 + 60 };

  test("a grant verifies until its expiry second has passed", () => {
    const query = signedQuery("secret", grant);
    expect(verifySignedQuery("secret", "PUT", grant.key, query, now)).toEqual(grant);
    expect(verifySignedQuery("secret", "PUT", grant.key, query, (grant.expires + 0.999) * 1000)).toEqual(grant);
    expect(verifySignedQuery("secret", "PUT", grant.key, query, (grant.expires + 1) * 1000)).toBeNull();
  });

  test("changing anything it covers invalidates it", () => {
    const query = signedQuery("secret", grant);
    const altered = (name: string, value: string) => {
      const copy = new URLSearchParams(query);
      copy.set(name, value);
      return copy;
    };
    expect(verifySignedQuery("other", "PUT", grant.key, query, now)).toBeNull();
    expect(verifySignedQuery("secret", "GET", grant.key, query, now)).toBeNull();
    expect(verifySignedQuery("secret", "PUT", "u/1/b.mp3", query, now)).toBeNull();
    expect(verifySignedQuery("secret", "PUT", grant.key, altered("partNumber", "4"), now)).toBeNull();
    expect(verifySignedQuery("secret", "PUT", grant.key, altered("uploadId", "cd".repeat(16)), now)).toBeNull();
    expect(verifySignedQuery("secret", "PUT", grant.key, altered("expires", String(grant.expires + 1)), now)).toBeNull();
    expect(verifySignedQuery("secret", "PUT", grant.key, altered("name", "x.html"), now)).toBeNull();
    expect(verifySignedQuery("secret", "PUT", grant.key, altered("signature", "AAAA"), now)).toBeNull();
    expect(verifySignedQuery("secret", "PUT", grant.key, altered("partNumber", "03"), now)).toBeNull();
  });

  test("the download name travels signed and survives URL encoding", () => {
    const download: SignedGrant = { method: "GET", key: "e/1.pdf", expires: now / 1000 + 60, downloadName: 'Réunion & co; "final".pdf' };
    const query = new URLSearchParams(signedQuery("secret", download).toString());
    expect(verifySignedQuery("secret", "GET", "e/1.pdf", query, now)).toEqual(download);
  });
});

test("Content-Disposition carries an ASCII fallback and the UTF-8 name (RFC 6266)", () => {
  expect(attachmentDisposition('Réunion (1)\'s "notes".txt')).toBe(
    `attachment; filename="R_union (1)'s _notes_.txt"; filename*=UTF-8''R%C3%A9union%20%281%29%27s%20%22notes%22.txt`,
  );
});
