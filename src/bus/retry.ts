/**
 * How long a failed message waits before its next delivery: short at first (a transient hiccup
 * clears fast), doubling so a persistently failing message does not spin. Shared by both adapters
 * so they behave alike under the contract suite.
 */
export const DEFAULT_MAX_DELIVER = 5;

export function retryDelayMs(deliveryCount: number): number {
  return Math.min(200 * 2 ** (deliveryCount - 1), 10_000);
}
