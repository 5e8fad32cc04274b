/**
 * Bounds on the shape of a JSON body, checked on the text as it arrives, before anything parses it:
 * nesting depth, items in any one array, and values in all. Parsing and then validating a body costs
 * time and memory per value (Elysia copies every value before it checks a `maxItems`): a 24 MiB
 * `[0,0,...]` of 12 million values took 3.4 s and 3 GB. Refused here, it costs the bytes read so far.
 */
export type JsonShapeLimits = {
  /** Most nesting of arrays and objects. */
  depth: number;
  /** Most items in one array (the schemas' largest `maxItems`). */
  arrayItems: number;
  /** Most values in the whole body (items, members and containers). */
  values: number;
};

export type JsonShapeViolation = { rule: "depth" | "arrayItems" | "values"; message: string };

const OPEN_OBJECT = 123;
const OPEN_ARRAY = 91;
const CLOSE_OBJECT = 125;
const CLOSE_ARRAY = 93;
const COMMA = 44;
const QUOTE = 34;
const BACKSLASH = 92;

/** Follows JSON text chunk by chunk without parsing it (strings are skipped); malformed JSON is left to the parser. */
export class JsonShapeScanner {
  private inString = false;
  private escaped = false;
  /** Per open container: items so far for an array, -1 for an object. */
  private readonly items: number[] = [];
  private values = 0;

  constructor(private readonly limits: JsonShapeLimits) {}

  /** The first rule the text so far breaks, or null. */
  feed(text: string): JsonShapeViolation | null {
    const { items, limits } = this;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
        continue;
      }
      if (c === QUOTE) this.inString = true;
      else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
        items.push(c === OPEN_ARRAY ? 1 : -1);
        if (items.length > limits.depth)
          return { rule: "depth", message: `The request body is nested too deeply: at most ${limits.depth} levels of arrays and objects.` };
        if (++this.values > limits.values) return this.tooManyValues();
      } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) items.pop();
      else if (c === COMMA) {
        const last = items.length - 1;
        if (last >= 0 && items[last]! > 0 && ++items[last]! > limits.arrayItems) {
          return { rule: "arrayItems", message: `The request body has an array of more than ${limits.arrayItems} items.` };
        }
        if (++this.values > limits.values) return this.tooManyValues();
      }
    }
    return null;
  }

  private tooManyValues(): JsonShapeViolation {
    return { rule: "values", message: `The request body has more than ${this.limits.values} values.` };
  }
}
