import "elysia";
import { FormatRegistry } from "@sinclair/typebox";

/** The longest email address any schema takes (RFC 5321 allows 254; the spec says 255). */
export const longestEmail = 255;

/**
 * To list every failure, TypeBox checks a string's format even after its `maxLength` has refused it, and the
 * email pattern Elysia registers is not linear-time in JavaScriptCore: `"a@" + "a.".repeat(500_000)` took 250 ms
 * of blocked event loop. So the format first refuses anything longer than an email can be, at no cost; the
 * field's `maxLength` (which must not be above `longestEmail`) says why. Importing `elysia` first puts its
 * formats in the registry before this replaces one.
 */
const email = FormatRegistry.Get("email");
if (email) FormatRegistry.Set("email", (value) => value.length <= longestEmail && email(value));
