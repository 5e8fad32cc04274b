import { ValidationFailedError } from "../core/errors.ts";
import { refuseIllFormedText } from "./text-encoding.ts";

/**
 * A JSON request body parsed so that no key of the client's reaches or breaks an object's prototype.
 *
 * - `__proto__`: JSON.parse keeps it as an own property, harmless until the object is copied by assignment
 *   (Object.assign, `target[key] = value`, Elysia merging a schema's defaults into the body): the copy's
 *   prototype then becomes the client's object, and `{"__proto__":{"ids":[1]}}` reads as having `ids`. No
 *   field of the API has that name, so a body with one anywhere is refused: 422, keyed by where it was.
 * - `toString`: an object whose own `toString` is no function cannot become a string, and Elysia's
 *   validation error writes the value it rejects into a template string: `{"name":{"toString":1}}` threw
 *   inside Elysia and answered 500. Such an object gets a prototype whose Symbol.toPrimitive (a key no JSON
 *   text can name) answers what any object does; its own properties stay as they were sent.
 */
export function parseJsonBody(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  refuseIllFormedText(text, value);
  // Most bodies cannot hold either key, spelled out or escaped (`\u005f_proto__`): they skip the walk.
  if (!mayHoldGuardedKey.test(text)) return value;
  const refused: [string, string[]][] = [];
  guard(value, "", refused);
  if (refused.length > 0) throw new ValidationFailedError(Object.fromEntries(refused));
  return value;
}

/** Either name, or an escaped ASCII character (`\u0000` to `\u007f`) that could spell one. */
const mayHoldGuardedKey = /__proto__|toString|\\u00[0-7]/;

const printable: object = Object.create(Object.prototype, {
  [Symbol.toPrimitive]: { value: () => "[object Object]" },
});

/** Depth is bounded before parsing (json-shape.ts), so the recursion is too. */
function guard(value: unknown, path: string, refused: [string, string[]][]): void {
  if (typeof value !== "object" || value === null) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) guard(value[i], `${path}${i}.`, refused);
    return;
  }
  if (Object.hasOwn(value, "__proto__")) refused.push([`${path}__proto__`, [`The ${path}__proto__ field is not allowed.`]]);
  if (Object.hasOwn(value, "toString")) Object.setPrototypeOf(value, printable);
  for (const key of Object.keys(value)) guard((value as Record<string, unknown>)[key], `${path}${key}.`, refused);
}
