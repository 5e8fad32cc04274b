import { ValueErrorType, type ValueError } from "@sinclair/typebox/errors";
import { isNamePattern, nameProblem } from "./names.ts";

/** Turns a JSON-pointer path into the field name clients sent: `/segments/0/start` → `segments.0.start`. */
export function fieldName(path: string, fallback: string): string {
  const field = path.replace(/^\//, "").replaceAll("/", ".").replaceAll("~1", "/").replaceAll("~0", "~");
  return field === "" ? fallback : field;
}

function label(field: string): string {
  return field.replaceAll("_", " ");
}

/** A sentence a person can act on, in the style clients of Laravel-like APIs expect. */
export function messageFor(error: ValueError, field: string): string {
  const schema = error.schema as Record<string, unknown>;
  if (typeof schema.error === "string") return schema.error;
  const name = label(field);
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return `The ${name} field is required.`;
    case ValueErrorType.ObjectAdditionalProperties:
      return `The ${name} field is not allowed.`;
    case ValueErrorType.StringMaxLength:
      if (typeof schema.tooLong === "string") return schema.tooLong;
      return `The ${name} field must not be greater than ${schema.maxLength} characters.`;
    case ValueErrorType.StringMinLength:
      return schema.minLength === 1 ? `The ${name} field is required.` : `The ${name} field must be at least ${schema.minLength} characters.`;
    case ValueErrorType.String:
      return `The ${name} field must be a string.`;
    case ValueErrorType.Integer:
      return `The ${name} field must be an integer.`;
    case ValueErrorType.Number:
      return `The ${name} field must be a number.`;
    case ValueErrorType.Boolean:
      return `The ${name} field must be true or false.`;
    case ValueErrorType.Array:
      return `The ${name} field must be an array.`;
    case ValueErrorType.Object:
      return `The ${name} field must be an object.`;
    case ValueErrorType.ArrayMinItems:
      return `The ${name} field must have at least ${schema.minItems} item${schema.minItems === 1 ? "" : "s"}.`;
    case ValueErrorType.ArrayMaxItems:
      return `The ${name} field must not have more than ${schema.maxItems} items.`;
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `The ${name} field must be at least ${schema.minimum}.`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `The ${name} field must not be greater than ${schema.maximum}.`;
    case ValueErrorType.StringFormat:
      if (schema.format === "integer") return `The ${name} field must be an integer.`;
      if (schema.format === "numeric") return `The ${name} field must be a number.`;
      return `The ${name} field must be a valid ${String(schema.format).replaceAll("-", " ")}.`;
    case ValueErrorType.StringPattern:
      if (isNamePattern(schema.pattern)) return nameProblem(name);
      return `The ${name} field format is invalid.`;
    case ValueErrorType.Union:
    case ValueErrorType.Literal:
      return `The selected ${name} is invalid.`;
    case ValueErrorType.Null:
      return `The ${name} field must be null.`;
    default:
      return `The ${name} field is invalid.`;
  }
}
