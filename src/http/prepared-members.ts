/**
 * A member of a large JSON body that its route has made ready on the JSON body thread (json-body-thread.ts), so that
 * the main thread never parses, checks or serialises it: a maximal transcript's 100,000 segments are 24 MiB whose
 * parse (15-25 ms), storage form and hash (45-80 ms) each held the event loop, `/api/health` p99 at 34 ms while
 * four clients sent them.
 *
 * A route asks for it on its body schema (`preparedOffThread`), naming the member and a module whose
 * `prepareMember` runs on the thread. The parser (bounded-body-parser.ts) then hands the route the body without that
 * member, which the route takes from `takePreparedMember` instead. When `prepareMember` declines (the member is not
 * valid), the body is handed over whole and validated as any other, so every refusal reads as it always did.
 */
export type MemberPreparer = {
  /** The body's member made ready on the thread (a top-level one). */
  member: string;
  /** A module that exports `prepareMember: PrepareMember`, loaded on the thread. */
  script: string;
};

/**
 * What a preparer does with the member's parsed value on the thread: what the route takes instead, with the buffers
 * in it that are handed over rather than copied; null when the value is not valid (the main thread then reports it).
 */
export type PrepareMember = (value: unknown) => { prepared: unknown; transfer: ArrayBuffer[] } | null;

/** Where a body schema names its preparer: a symbol, so the OpenAPI document and validation never see it. */
const preparerKey = Symbol.for("scribe.preparedOffThread");

/** `schema`, marked so that a large body's `preparer.member` is made ready off the main thread. */
export function preparedOffThread<S extends object>(schema: S, preparer: MemberPreparer): S {
  Object.defineProperty(schema, preparerKey, { value: preparer, enumerable: false });
  return schema;
}

export function preparerOf(schema: unknown): MemberPreparer | null {
  if (typeof schema !== "object" || schema === null) return null;
  return (schema as { [preparerKey]?: MemberPreparer })[preparerKey] ?? null;
}

/** `fingerprint`: the Idempotency-Key fingerprint of the whole body (idempotency-key.ts), made on the thread when asked. */
export type PreparedMember = { member: string; value: unknown; fingerprint: string | null };

const preparedMembers = new WeakMap<Request, PreparedMember>();

export function keepPreparedMember(request: Request, prepared: PreparedMember): void {
  preparedMembers.set(request, prepared);
}

/**
 * What the thread made of `member` for this request, or undefined: the body carried it as usual, or not at all. Taken
 * once: the request lives until its answer, after the route's wait for the read models, and this may be 24 MiB.
 */
export function takePreparedMember(request: Request, member: string): unknown {
  const prepared = preparedMembers.get(request);
  if (prepared?.member !== member) return undefined;
  const { value } = prepared;
  prepared.value = undefined;
  return value;
}

/** The fingerprint of a body whose member was made ready on the thread, which alone saw it whole. */
export function preparedFingerprintOf(request: Request): string | null {
  return preparedMembers.get(request)?.fingerprint ?? null;
}
