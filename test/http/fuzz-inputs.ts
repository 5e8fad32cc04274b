/**
 * What fuzz.int.test.ts sends: request bodies as the exact bytes on the wire (JSON text written by hand, so
 * that it can hold what JSON.stringify cannot: a `__proto__` key, the same key twice, bytes that are not
 * UTF-8) and query strings, with the keys a handler that indexes a plain object trips over.
 */
import fc from "fast-check";

/**
 * Names every plain object already answers to (Object.prototype's members), or that reach a prototype:
 * `errors[field] ??= []` with a field named `constructor` found Object's constructor and threw (500).
 */
export const builtinNames = [
  "constructor",
  "__proto__",
  "prototype",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "__defineGetter__",
  "__lookupGetter__",
  "__defineSetter__",
  "__lookupSetter__",
];

/**
 * A key no operation defines and no object answers to: what a built-in name must be answered like. A field the
 * schema does not define is dropped from a body, never refused (docs/api.md, Errors), whatever its name; the
 * exception is `__proto__`, refused anywhere in a JSON body.
 */
export const unknownKey = "zz_unknown";

/** The built-in names that are ordinary unknown keys (all but `__proto__`). */
export const ignoredBuiltinNames = builtinNames.filter((name) => name !== "__proto__");

/**
 * Pairs of JSON texts that must be answered alike: each built-in name against `unknownKey`, alone, beside a field
 * of the schema (`fieldNames[0]`) and inside one, and after `valid` (a body the operation accepts, when known).
 */
export function builtinKeyPairs(fieldNames: readonly string[], valid: string | null): [string, string][] {
  const pairs: [string, string][] = [];
  const [field] = fieldNames;
  const withKey = (key: string) => {
    const cases = [objectText([[key, "1"]]), objectText([[key, '{"x":1}']])];
    if (field !== undefined)
      cases.push(
        objectText([
          [field, "true"],
          [key, "[]"],
        ]),
        objectText([[field, objectText([[key, "1"]])]]),
      );
    if (valid !== null) cases.push(`${valid.slice(0, -1)}${valid.length > 2 ? "," : ""}${JSON.stringify(key)}:1}`);
    return cases;
  };
  for (const name of ignoredBuiltinNames) {
    const unknown = withKey(unknownKey);
    for (const [i, text] of withKey(name).entries()) pairs.push([text, unknown[i]!]);
  }
  return pairs;
}

/**
 * Pairs that must be answered alike: a field given twice, and once with its last value (JSON.parse keeps the last,
 * docs/api.md). The last value is null, which few fields take, so that neither request creates anything.
 */
export function duplicateKeyPairs(fieldNames: readonly string[]): [string, string][] {
  return fieldNames.map((name) => [
    objectText([
      [name, '"a"'],
      [name, "null"],
    ]),
    objectText([[name, "null"]]),
  ]);
}

/** The fields a 422 refuses as unknown ("not allowed"): none may be, but a `__proto__` key. */
export function refusedUnknownFields(errors: Record<string, unknown>): string[] {
  return Object.entries(errors)
    .filter(([, messages]) => Array.isArray(messages) && messages.some((m) => String(m).endsWith("field is not allowed.")))
    .map(([field]) => field)
    .filter((field) => !field.split(".").includes("__proto__"));
}

/** A body as sent: JSON text, or raw bytes. */
export type RawBody = string | Uint8Array;

const scalar = fc.oneof(fc.string({ maxLength: 40 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.string({ unit: "binary", maxLength: 20 }));
const jsonText = (value: unknown) => JSON.stringify(value) ?? "null";
const objectText = (entries: readonly (readonly [string, string])[]) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(",")}}`;

/**
 * Byte sequences no UTF-8 decoder may accept: bytes UTF-8 never uses (0xff 0xfe is UTF-16's byte-order
 * mark), continuation bytes with no lead, overlong encodings of "/", sequences cut short, an encoded UTF-16
 * surrogate and a code point above U+10FFFF.
 */
const notUtf8 = fc.constantFrom(
  [0xff],
  [0xfe],
  [0xff, 0xfe],
  [0x80],
  [0xbf, 0x80],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xf0, 0x80, 0x80, 0xaf],
  [0xc3],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
);

/** Every body kind, keyed by the operation's schema field names (`fieldNames`, none for a body-less one). */
export function bodyFor(fieldNames: readonly string[]): fc.Arbitrary<RawBody> {
  const field = fieldNames.length > 0 ? fc.constantFrom(...fieldNames) : fc.string({ maxLength: 10 });
  const key = fc.oneof({ arbitrary: field, weight: 2 }, { arbitrary: fc.constantFrom(...builtinNames), weight: 1 });
  const { value } = fc.letrec<{ value: string; object: string; array: string }>((tie) => ({
    value: fc.oneof({ maxDepth: 3, depthIdentifier: "body" }, scalar.map(jsonText), tie("object"), tie("array")),
    object: fc.array(fc.tuple(key, tie("value")), { maxLength: 4 }).map(objectText),
    array: fc.array(tie("value"), { maxLength: 3 }).map((items) => `[${items.join(",")}]`),
  }));
  // The schema's and the built-in names, repeats allowed (JSON.parse keeps the last).
  const keyed = fc.array(fc.tuple(key, value), { maxLength: 6 }).map(objectText);
  // A field twice, first and last, with others between: `{"name":"a","name":1}`.
  const duplicated = fc
    .tuple(field, value, value, fc.array(fc.tuple(key, value), { maxLength: 3 }))
    .map(([name, first, last, between]) => objectText([[name, first], ...between, [name, last]]));
  // `__proto__` one to three deep, under zero to two fields: `{"a":{"__proto__":{"__proto__":{"ids":[1]}}}}`.
  const protoNested = fc
    .tuple(fc.array(key, { maxLength: 2 }), fc.integer({ min: 1, max: 3 }), keyed)
    .map(([outer, depth, inner]) => [...outer, ...Array<string>(depth).fill("__proto__")].reduceRight((text, name) => objectText([[name, text]]), inner));
  const protoFixed = fc.constantFrom(
    '{"__proto__":{"__proto__":{"x":1}}}',
    '{"a":{"__proto__":{"isAdmin":true}}}',
    '{"\\u005f_proto__":{"isAdmin":true}}',
    '{"constructor":{"prototype":{"isAdmin":true}}}',
    '{"__proto__":null}',
    '{"__proto__":[]}',
  );
  // Not UTF-8 alone, in a field's string, in a key, or after a whole JSON text.
  const encoder = new TextEncoder();
  const invalid = fc.tuple(field, notUtf8, fc.nat(3)).map(([name, bad, where]) => {
    const [before, after] = [
      ["", ""],
      [`{${JSON.stringify(name)}:"`, '"}'],
      ['{"', '":1}'],
      [`{${JSON.stringify(name)}:1}`, ""],
    ][where]!;
    return new Uint8Array([...encoder.encode(before), ...bad, ...encoder.encode(after)]);
  });
  return fc.oneof(
    { arbitrary: keyed, weight: 4 },
    { arbitrary: duplicated, weight: 1 },
    { arbitrary: fc.oneof(protoNested, protoFixed), weight: 2 },
    { arbitrary: invalid, weight: 1 },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }).map(jsonText), weight: 1 },
    { arbitrary: fc.string({ maxLength: 50 }), weight: 1 },
  );
}

/** Query parameters, repeats allowed: the list operations' own names, an unknown one and the built-in names. */
export const queryPairs = fc.array(
  fc.tuple(fc.constantFrom("page", "per_page", "status", "search", "folder", "x", ...builtinNames), fc.string({ maxLength: 20 })),
  { maxLength: 3 },
);

/** A body as a failure message shows it: the text, or the bytes in hex when they are not all text. */
export function shown(body: RawBody): string {
  return typeof body === "string" ? body.slice(0, 200) : `bytes ${Buffer.from(body).toString("hex").slice(0, 200)}`;
}
