import { PreconditionFailedError, ValidationFailedError } from "../core/errors.ts";

/**
 * Optimistic concurrency over HTTP (RFC 9110 8.8.3 and 13.1.1) for resources whose version is a revision of their
 * event stream, that of the last event that changed what they show: the ETag is that revision as a strong entity tag
 * (`"7"`), opaque to clients, and a write with `If-Match` happens only while nothing a reader sees changed after a
 * revision it names.
 */

export const ifMatchHeader = "If-Match";

type EntityTag = { weak: boolean; opaque: string };
export type IfMatch = { kind: "any" } | { kind: "tags"; tags: EntityTag[] };

/** etagc (RFC 9110 8.8.3): any visible character but `"`, and obs-text. */
const opaqueCharacters = /^[\x21\x23-\x7e\x80-\xff]*$/;
const malformed = { problem: `${ifMatchHeader} must be * or a comma-separated list of entity tags as the ETag header gives them, such as "7".` };

/**
 * `*` or a list of entity tags (`"7"`, `W/"7"`); empty list elements are allowed, as RFC 9110 5.6.1 asks. A
 * comma may be inside a tag, so the list is read tag by tag rather than split. Linear in the header's length.
 */
export function parseIfMatch(value: string): IfMatch | { problem: string } {
  if (/^[ \t]*\*[ \t]*$/.test(value)) return { kind: "any" };
  const tags: EntityTag[] = [];
  let i = 0;
  const skipSpaceAndCommas = () => {
    while (i < value.length && (value[i] === " " || value[i] === "\t" || value[i] === ",")) i++;
  };
  skipSpaceAndCommas();
  while (i < value.length) {
    const weak = value.startsWith("W/", i);
    if (weak) i += 2;
    if (value[i] !== '"') return malformed;
    const end = value.indexOf('"', i + 1);
    if (end === -1) return malformed;
    const opaque = value.slice(i + 1, end);
    if (!opaqueCharacters.test(opaque)) return malformed;
    tags.push({ weak, opaque });
    i = end + 1;
    while (i < value.length && (value[i] === " " || value[i] === "\t")) i++;
    if (i < value.length && value[i] !== ",") return malformed;
    skipSpaceAndCommas();
  }
  return tags.length === 0 ? malformed : { kind: "tags", tags };
}

/** The ETag of a resource at a stream revision: strong, since one revision is one representation. */
export const revisionTag = (revision: number): string => `"${revision}"`;

/**
 * Where a stream stands when a write is decided on it: its `revision`, and `shown`, the revision of its last event
 * that changed what a reader sees (at most `revision`). Events after `shown` are the service's bookkeeping (an export
 * made, a lost message sent again): a reader who read at any revision from `shown` on saw what is there now.
 */
export type StreamVersion = { shown: number; revision: number };

/** A check of the version a write is about to be decided on: throws PreconditionFailedError (412) when the header names none of it. */
export type RevisionCondition = (version: StreamVersion) => void;

/**
 * What an `If-Match` header asks of a write on a stream: null when nothing (no header, or `*`, which any
 * existing resource matches: a missing one is already 404). A header that is no list of entity tags is a
 * 422 on `If-Match`, as with every malformed field here, rather than a condition silently taken as true.
 * Tags are compared strongly, as RFC 9110 13.1.1 requires for If-Match: a weak tag (`W/"7"`, which some
 * proxies make of a strong one when they compress) never matches. `stale`: the 412's message.
 */
export function revisionCondition(header: string | null, stale: string): RevisionCondition | null {
  if (header === null) return null;
  const parsed = parseIfMatch(header);
  if ("problem" in parsed) throw new ValidationFailedError({ [ifMatchHeader]: [parsed.problem] });
  if (parsed.kind === "any") return null;
  const revisions = new Set<number>();
  for (const tag of parsed.tags) if (!tag.weak && /^(0|[1-9]\d{0,14})$/.test(tag.opaque)) revisions.add(Number(tag.opaque));
  const onlyWeak = parsed.tags.every((tag) => tag.weak);
  return ({ shown, revision }) => {
    for (const tagged of revisions) if (tagged >= shown && tagged <= revision) return;
    throw new PreconditionFailedError(
      onlyWeak ? `${ifMatchHeader} compares entity tags strongly, so a weak one (W/"…") never matches: send the ETag as the API gave it, without W/.` : stale,
    );
  };
}
