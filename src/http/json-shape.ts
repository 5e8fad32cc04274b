/**
 * Bounds on the shape of a JSON body, checked on the text as it arrives, before anything parses it:
 * nesting depth, items in any one array, members in any one object, different member names, and values
 * in all. Parsing and then validating a body costs time and memory per value (Elysia copies every value
 * before it checks a `maxItems`): a 24 MiB `[0,0,...]` of 12 million values took 3.4 s and 3 GB. And
 * JSON.parse pays for every member name it has not seen: 12 MB of an object with a million different keys
 * took 650 ms, and spread over 10,000 objects 1.1 s and 165 MB more. Refused here, it costs the bytes read so far.
 */
export type JsonShapeLimits = {
  /** Most nesting of arrays and objects. */
  depth: number;
  /** Most items in one array (the schemas' largest `maxItems`). */
  arrayItems: number;
  /** Most members in one object (no body of the API has more than a dozen fields). */
  objectMembers: number;
  /** Most different member names in the whole body (the API's bodies use a few dozen between them). */
  memberNames: number;
  /** Most values in the whole body (items, members and containers). */
  values: number;
};

export type JsonShapeViolation = { rule: "depth" | "arrayItems" | "objectMembers" | "memberNames" | "values"; message: string };

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
  /** Per open container: items so far for an array (positive), members so far for an object (negative). */
  private readonly items: number[] = [];
  private values = 0;
  /** The next string opens a member name (after `{` or an object's `,`). */
  private expectName = false;
  /** A member name is being read; `name` holds what earlier chunks had of it. */
  private inName = false;
  private name = "";
  /** Member names as written, escapes and all: `"a"` and `"\u0061"` count as two, which only a hostile body writes. */
  private readonly names = new Set<string>();

  constructor(private readonly limits: JsonShapeLimits) {}

  /** The member names seen so far, as written (bounded-body-parser.ts: whether a large body needs its parsing thread). */
  get memberNames(): ReadonlySet<string> {
    return this.names;
  }

  /** The first rule the text so far breaks, or null. */
  feed(text: string): JsonShapeViolation | null {
    const { items, limits } = this;
    let nameFrom = 0;
    // Inside a string only a quote or a backslash matters: the scan jumps to the next of either (indexOf, native),
    // instead of looking at every character. A string filling an 88 KB body made this loop a third of what
    // refusing that body cost. -2: not looked for yet in this text; -1: none left in it.
    let nextQuote = -2;
    let nextBackslash = -2;
    for (let i = 0; i < text.length; i++) {
      if (this.inString && !this.escaped) {
        if (nextQuote !== -1 && nextQuote < i) nextQuote = text.indexOf('"', i);
        if (nextBackslash !== -1 && nextBackslash < i) nextBackslash = text.indexOf("\\", i);
        const stop = nextQuote === -1 ? nextBackslash : nextBackslash === -1 ? nextQuote : Math.min(nextQuote, nextBackslash);
        if (stop === -1) break;
        i = stop;
      }
      const c = text.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) {
          this.inString = false;
          if (this.inName && this.sawName(this.name + text.slice(nameFrom, i))) return this.tooManyNames();
        }
        continue;
      }
      if (c === QUOTE) {
        this.inString = true;
        if (this.expectName) {
          this.expectName = false;
          this.inName = true;
          this.name = "";
          nameFrom = i + 1;
        }
      } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
        items.push(c === OPEN_ARRAY ? 1 : -1);
        this.expectName = c === OPEN_OBJECT;
        if (items.length > limits.depth)
          return { rule: "depth", message: `The request body is nested too deeply: at most ${limits.depth} levels of arrays and objects.` };
        if (++this.values > limits.values) return this.tooManyValues();
      } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
        items.pop();
        this.expectName = false;
      } else if (c === COMMA) {
        const last = items.length - 1;
        if (last >= 0 && items[last]! > 0 && ++items[last]! > limits.arrayItems) {
          return { rule: "arrayItems", message: `The request body has an array of more than ${limits.arrayItems} items.` };
        }
        if (last >= 0 && items[last]! < 0 && --items[last]! < -limits.objectMembers) {
          return { rule: "objectMembers", message: `The request body has an object of more than ${limits.objectMembers} members.` };
        }
        this.expectName = last >= 0 && items[last]! < 0;
        if (++this.values > limits.values) return this.tooManyValues();
      }
    }
    if (this.inName && this.inString) this.name += text.slice(nameFrom);
    return null;
  }

  /** Counts a member name; true when it is one too many. */
  private sawName(name: string): boolean {
    this.inName = false;
    this.name = "";
    if (this.names.has(name)) return false;
    this.names.add(name);
    return this.names.size > this.limits.memberNames;
  }

  private tooManyNames(): JsonShapeViolation {
    return { rule: "memberNames", message: `The request body has more than ${this.limits.memberNames} different member names.` };
  }

  private tooManyValues(): JsonShapeViolation {
    return { rule: "values", message: `The request body has more than ${this.limits.values} values.` };
  }
}
