import { isIP } from "node:net";

/** The sections of the reference, in the order `bun run admin config` and docs/operations.md show them. */
export const groups = [
  "server",
  "event store",
  "read models",
  "bus",
  "blobs",
  "request limits",
  "accounts and billing",
  "transcription",
  "summaries",
  "OpenAI-compatible endpoint",
  "live transcription",
  "media fetching",
  "exports",
  "webhooks",
  "observability",
  "tests only",
] as const;
export type Group = (typeof groups)[number];

/** A value read from a set variable, or the rule its text broke ("must be an integer from 0 to 65535"). */
export type Parsed<T> = { value: T } | { broken: string };

/**
 * One environment variable the service reads: how operators see it, and how its text becomes a value.
 * An unset or blank variable takes `fallback`; a set one goes through `parse`.
 */
export type Setting<T> = {
  group: Group;
  /** The rule, as an operator reads it: "integer 0..65535", "on|off", "URL (http, https)". */
  type: string;
  /** The default as shown to operators: a value, or what happens when unset ("unset", "number of cores"). */
  shownDefault: string;
  description: string;
  /** Never printed: `admin config --check` shows "(set)", and a broken value is not echoed in errors. */
  secret: boolean;
  fallback: T;
  parse(raw: string): Parsed<T>;
  /** A value as the variable would spell it, for `admin config --check`. */
  show(value: T): string;
};

/** Settings by name: the core's part of the schema, a capability's (its folder's `settings.ts`), or the whole. */
export type SettingsSchema = { readonly [name: string]: Setting<unknown> };

/** Each setting's value once read: its parsed text, or its fallback. */
export type ValuesOf<S> = { [K in keyof S]: S[K] extends Setting<infer T> ? T : never };

/** What every setting says about itself; `shownDefault` is needed only where the fallback does not say it. */
type About = { group: Group; description: string; shownDefault?: string };

const shownAs = (value: unknown) => (value === null ? "unset" : Array.isArray(value) ? value.join(",") : String(value));

const shown = (about: About, fallback: string) => ({
  show: shownAs,
  group: about.group,
  description: about.description,
  shownDefault: about.shownDefault ?? fallback,
  secret: false,
});

export function integer(about: About & { min: number; max: number; fallback: number }): Setting<number> {
  const rule = `must be an integer from ${about.min} to ${about.max}`;
  return {
    ...shown(about, String(about.fallback)),
    type: `integer ${about.min}..${about.max}`,
    fallback: about.fallback,
    parse(raw) {
      // Digits only: Number() would also take "1e3", "0x10" and "" for integers.
      const value = /^[+-]?\d+$/.test(raw) ? Number(raw) : Number.NaN;
      return Number.isSafeInteger(value) && value >= about.min && value <= about.max ? { value } : { broken: rule };
    },
  };
}

/** A switch spelled as the service has always accepted it for this variable (`on|off`, `true|false`, `1|0`). */
export function flag(about: About & { words: readonly [on: string, off: string]; fallback: boolean }): Setting<boolean> {
  const [on, off] = about.words;
  return {
    ...shown(about, about.fallback ? on : off),
    type: `${on}|${off}`,
    fallback: about.fallback,
    show: (value) => (value ? on : off),
    parse: (raw) => (raw === on ? { value: true } : raw === off ? { value: false } : { broken: `must be ${on} or ${off}` }),
  };
}

export function oneOf<const V extends readonly string[]>(about: About & { values: V; fallback: V[number] }): Setting<V[number]> {
  return {
    ...shown(about, about.fallback),
    type: about.values.join("|"),
    fallback: about.fallback,
    parse: (raw) => (about.values.includes(raw) ? { value: raw as V[number] } : { broken: `must be one of ${about.values.join(", ")}` }),
  };
}

/** Several of `values`, comma-separated, at least one. */
export function listOf<const V extends readonly string[]>(about: About & { values: V; fallback: V[number][] }): Setting<V[number][]> {
  return {
    ...shown(about, about.fallback.join(",")),
    type: `list of ${about.values.join(", ")}`,
    fallback: about.fallback,
    parse(raw) {
      const items = raw.split(",").map((item) => item.trim());
      const valid = items.every((item) => about.values.includes(item));
      return valid ? { value: items as V[number][] } : { broken: `must be a comma-separated list of ${about.values.join(", ")}` };
    },
  };
}

/** Free text with a default; `kind` names what it is for operators ("path", "string", "program"). */
export function text(about: About & { kind?: string; fallback: string }): Setting<string> {
  return { ...shown(about, about.fallback), type: about.kind ?? "string", fallback: about.fallback, parse: (raw) => ({ value: raw }) };
}

/** Free text that may stay unset (null). */
export function optionalText(about: About & { kind?: string }): Setting<string | null> {
  return { ...shown(about, "unset"), type: about.kind ?? "string", fallback: null, parse: (raw) => ({ value: raw }) };
}

/** A credential or token: never printed, never echoed. */
export function secret(about: About): Setting<string | null> {
  return { ...optionalText(about), type: "secret", secret: true };
}

/** An absolute URL with one of `protocols`, or unset. */
export function url(about: About & { protocols: readonly string[] }): Setting<string | null> {
  const protocols = about.protocols.join(", ");
  return {
    ...shown(about, "unset"),
    type: `URL (${protocols})`,
    fallback: null,
    parse(raw) {
      const scheme = /^([a-z][a-z0-9+.-]*):\/\/[^/?#\s]/i.exec(raw)?.[1]?.toLowerCase();
      return scheme && about.protocols.includes(scheme)
        ? { value: raw }
        : { broken: `must be a URL starting with ${about.protocols.map((p) => `${p}://`).join(" or ")}` };
    },
  };
}

/** Comma-separated items each `accepts`: the shape of the IP-address lists below. */
function ipList(about: About, type: string, accepts: (item: string) => boolean): Setting<string[]> {
  return {
    ...shown(about, "none"),
    type,
    fallback: [],
    parse(raw) {
      const items = raw
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean);
      const wrong = items.find((item) => !accepts(item));
      return wrong === undefined ? { value: items } : { broken: `must be a comma-separated ${type} (${wrong} is not one)` };
    },
  };
}

/** Comma-separated IP address literals (v4 or v6). */
export const addresses = (about: About): Setting<string[]> => ipList(about, "list of IP addresses", (item) => isIP(item) !== 0);

/** An IP address or a CIDR block (`10.0.0.0/8`, `fd00::/8`): the prefix fits the address's family. */
function isNetwork(item: string): boolean {
  const [address = "", prefix, ...rest] = item.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** Comma-separated IP addresses and CIDR blocks (v4 or v6). */
export const networks = (about: About): Setting<string[]> => ipList(about, "list of IP addresses or CIDR blocks", isNetwork);
