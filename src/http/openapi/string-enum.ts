import type { SchemaOptions, TLiteral, TUnion } from "@sinclair/typebox";
import { t } from "elysia";

type Literals<Values extends readonly string[]> = { -readonly [K in keyof Values]: TLiteral<Values[K]> };

/**
 * A closed set of strings (a task's status, an export format, a plan): validated as a union of literals and
 * written as one `enum` in the OpenAPI document (normalize-schema.ts), so a generated client gets a union type.
 * The values come as a tuple (`as const`) because Elysia types a route's schemas through TypeBox's module types,
 * which read a union's members one by one: a union mapped from a plain array would type as `never` there.
 */
export function stringEnum<const Values extends readonly [string, ...string[]]>(values: Values, options?: SchemaOptions): TUnion<Literals<Values>> {
  return t.Union(
    values.map((value) => t.Literal(value)),
    options,
  ) as TUnion<Literals<Values>>;
}

/**
 * Every member of the union `Union`, as a tuple for `stringEnum`: `everyOf<Status>()(["a", "b"])` fails to compile
 * when a member is missing, so an answer the service can give is never outside the document's enum (a 500).
 */
export function everyOf<Union extends string>() {
  return <const Values extends readonly [Union, ...Union[]]>(values: Values & ([Exclude<Union, Values[number]>] extends [never] ? unknown : never)) => values;
}
