import { TransformDecodeError } from "@sinclair/typebox/value";

/**
 * Where a failed transform was: Elysia's t.Integer and t.Numeric take a query's, a path's or a form's text as a
 * string and check their bounds while decoding it, and when that check fails Elysia throws the inner error,
 * which TypeBox made for the bare number (`property`, path ""); the field's path was only on TypeBox's
 * TransformDecodeError, which Elysia drops. `?page=0` answered `errors: {property: [...]}`, and the OpenAI
 * endpoint `param: "property"` for `temperature=5`. TypeBox assigns the inner error last in that error's
 * constructor (after `path`): an accessor on its prototype notes the path beside the inner error as it is set.
 */
const paths = new WeakMap<object, string>();

Object.defineProperty(TransformDecodeError.prototype, "error", {
  configurable: true,
  set(this: { path?: unknown }, inner: unknown) {
    Object.defineProperty(this, "error", { value: inner, writable: true, enumerable: true, configurable: true });
    if (typeof inner === "object" && inner !== null && typeof this.path === "string") paths.set(inner, this.path);
  },
});

/** The JSON pointer (`/temperature`) of the value whose decoding threw `error`, when a transform threw it. */
export function decodePathOf(error: object): string | null {
  return paths.get(error) ?? null;
}
