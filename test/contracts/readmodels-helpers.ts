/** Shared by the parts of the read-model contract (test/contracts/readmodels.contract.ts). */
import type { Collection, Document, DocumentStore, Filter, FindOptions } from "../../src/readmodels/port.ts";

/** A fresh, uniquely named collection per call (`named` also gives its name), and the store they are in. */
export type ContractContext = { fresh: () => Collection; named: () => { name: string; collection: Collection }; store: () => DocumentStore };

/** Ids of what `find` returns: in order when sorting, else sorted (natural order is unspecified). */
export async function ids(c: Collection, filter: Filter, options?: FindOptions): Promise<string[]> {
  const docs = await c.find(filter, options);
  const list = docs.map((d: Document) => d._id);
  return options?.sort ? list : list.sort();
}
