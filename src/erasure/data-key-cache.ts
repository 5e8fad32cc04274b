/**
 * The CryptoKeys a process has loaded, by scope, so a field costs one decrypt and no key store read or key import.
 * An erasure is final: an erased scope is remembered as such for good. A live key is kept `ttlMs` (null: until
 * `forgetLive`), for adapters whose store other processes may erase behind this one's back (MongoDB).
 *
 * Loads of one scope in flight at once share one promise. A load that ends after the scope was erased here
 * answers "erased": the erasure happened before it returned.
 */

type Loaded = CryptoKey | "erased" | null;
type Entry = { value: CryptoKey | "erased"; until: number };

/** Enough for every task a replay reads on a large instance; the oldest go first beyond it. */
const DEFAULT_MAX_ENTRIES = 200_000;

export class DataKeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<Loaded>>();
  /** Bumped by forgetLive: a load begun before it may have read a key since erased elsewhere, and is not kept. */
  private generation = 0;

  constructor(
    private readonly ttlMs: number | null,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = DEFAULT_MAX_ENTRIES,
  ) {}

  /** What is known of `scope` here: its key, "erased", or undefined (not loaded, or expired). */
  get(scope: string): CryptoKey | "erased" | undefined {
    const entry = this.entries.get(scope);
    if (!entry) return undefined;
    if (entry.until < this.now()) {
      this.entries.delete(scope);
      return undefined;
    }
    return entry.value;
  }

  /** The cached answer, or `load`'s (shared with any load of `scope` in flight). null (no key) is not cached. */
  async load(scope: string, load: () => Promise<Loaded>): Promise<Loaded> {
    const known = this.get(scope);
    if (known !== undefined) return known;
    const inFlight = this.loading.get(scope);
    if (inFlight) return inFlight;
    const generation = this.generation;
    const loading = load().then((value) => {
      if (this.entries.get(scope)?.value === "erased") return "erased";
      if (value !== null && generation === this.generation) this.remember(scope, value);
      return value;
    });
    this.loading.set(scope, loading);
    const forget = () => {
      if (this.loading.get(scope) === loading) this.loading.delete(scope);
    };
    loading.then(forget, forget);
    return loading;
  }

  /** The scope is erased: for good, whatever a load in flight returns. */
  markErased(scope: string): void {
    this.loading.delete(scope);
    this.entries.delete(scope);
    this.entries.set(scope, { value: "erased", until: Number.POSITIVE_INFINITY });
    this.trim();
  }

  /** Drops every live key (another process may have erased some); erased scopes stay known. */
  forgetLive(): void {
    for (const [scope, entry] of this.entries) if (entry.value !== "erased") this.entries.delete(scope);
    this.loading.clear();
    this.generation += 1;
  }

  clear(): void {
    this.entries.clear();
    this.loading.clear();
    this.generation += 1;
  }

  private remember(scope: string, value: CryptoKey | "erased"): void {
    const until = value === "erased" || this.ttlMs === null ? Number.POSITIVE_INFINITY : this.now() + this.ttlMs;
    this.entries.delete(scope);
    this.entries.set(scope, { value, until });
    this.trim();
  }

  private trim(): void {
    // A Map iterates in insertion order, and remember() re-inserts: the first entries are the oldest loaded.
    for (const scope of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) return;
      this.entries.delete(scope);
    }
  }
}
