import { integer, networks, type Setting } from "../config/setting.ts";
import { defaultRetryScheduleSeconds } from "./schedule.ts";

/** Comma-separated whole seconds, each from 1 to a week: the delays between a message's attempts. */
function delays(about: { description: string; fallback: readonly number[] }): Setting<number[]> {
  const rule = "must be a comma-separated list of whole seconds, each from 1 to 604800";
  return {
    group: "webhooks",
    type: "list of seconds",
    description: about.description,
    shownDefault: about.fallback.join(","),
    secret: false,
    fallback: [...about.fallback],
    show: (value) => value.join(","),
    parse(raw) {
      const items = raw.split(",").map((item) => item.trim());
      const valid = items.every((item) => /^\d+$/.test(item) && Number(item) >= 1 && Number(item) <= 604_800);
      return valid ? { value: items.map(Number) } : { broken: rule };
    },
  };
}

/** Outgoing webhooks (docs/api.md). */
export const webhookSettings = {
  WEBHOOK_TIMEOUT_SECONDS: integer({ group: "webhooks", min: 1, max: 60, fallback: 15, description: "How long an attempt waits for the receiver's answer." }),
  WEBHOOK_RETRY_SCHEDULE_SECONDS: delays({
    fallback: defaultRetryScheduleSeconds,
    description:
      "Seconds before each retry after a failed attempt (±10 %); when they are spent the message is given up and its endpoint disabled. Shorter " +
      "than 24 h in all only in tests.",
  }),
  WEBHOOK_ALLOWED_NETWORKS: networks({
    group: "webhooks",
    description:
      "Addresses and CIDR blocks (e.g. 127.0.0.1,192.168.1.0/24) that webhook endpoints may be on although not public: your own receivers on this " +
      "machine or your network. Every other private, loopback and link-local address stays refused.",
  }),
} as const;
