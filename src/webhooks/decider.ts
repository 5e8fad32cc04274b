import { assertNever, type Decider } from "../core/decider.ts";
import { NotFoundError, ValidationFailedError } from "../core/errors.ts";
import { maxEndpointsPerUser, type WebhookEndpointEvent, type WebhookEventType } from "./events.ts";

export type Endpoint = { url: string; events: WebhookEventType[]; signingSecret: string; disabled: boolean };

/** An account's endpoints by id, as `webhooks-<user id>` folds. */
export type EndpointsState = { userId: number | null; endpoints: ReadonlyMap<string, Endpoint> };

export type EndpointCommand =
  | { type: "CreateEndpoint"; userId: number; endpointId: string; url: string; events: WebhookEventType[]; signingSecret: string; now: string }
  | { type: "DeleteEndpoint"; endpointId: string }
  | { type: "DisableEndpoint"; endpointId: string; reason: string; now: string }
  | { type: "EnableEndpoint"; endpointId: string; now: string };

const notFound = () => new NotFoundError("Webhook endpoint not found.");

export const endpointsDecider: Decider<EndpointsState, EndpointCommand, WebhookEndpointEvent> = {
  initialState: () => ({ userId: null, endpoints: new Map() }),
  evolve(state, event) {
    switch (event.type) {
      case "WebhookEndpointCreated": {
        const { url, events, signingSecret } = event.data;
        return {
          userId: event.data.userId,
          endpoints: new Map([...state.endpoints, [event.data.endpointId, { url, events, signingSecret, disabled: false }]]),
        };
      }
      case "WebhookEndpointDeleted": {
        const endpoints = new Map(state.endpoints);
        endpoints.delete(event.data.endpointId);
        return { ...state, endpoints };
      }
      case "WebhookEndpointDisabled":
      case "WebhookEndpointEnabled": {
        const endpoint = state.endpoints.get(event.data.endpointId);
        if (!endpoint) return state;
        const disabled = event.type === "WebhookEndpointDisabled";
        return { ...state, endpoints: new Map([...state.endpoints, [event.data.endpointId, { ...endpoint, disabled }]]) };
      }
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case "CreateEndpoint": {
        if (state.endpoints.has(command.endpointId)) return [];
        if (state.endpoints.size >= maxEndpointsPerUser)
          throw new ValidationFailedError({ url: [`An account can have at most ${maxEndpointsPerUser} webhook endpoints; delete one first.`] });
        const { userId, endpointId, url, events, signingSecret, now } = command;
        return [{ type: "WebhookEndpointCreated", data: { userId, endpointId, url, events, signingSecret, createdAt: now } }];
      }
      case "DeleteEndpoint":
        if (state.userId === null || !state.endpoints.has(command.endpointId)) throw notFound();
        return [{ type: "WebhookEndpointDeleted", data: { userId: state.userId, endpointId: command.endpointId } }];
      case "DisableEndpoint": {
        // Already disabled or deleted: a second failing message (or a redelivery) changes nothing.
        const endpoint = state.endpoints.get(command.endpointId);
        if (state.userId === null || !endpoint || endpoint.disabled) return [];
        const data = { userId: state.userId, endpointId: command.endpointId, url: endpoint.url, reason: command.reason, disabledAt: command.now };
        return [{ type: "WebhookEndpointDisabled", data }];
      }
      case "EnableEndpoint": {
        // One that is enabled already stays as it is: asking twice is not an error.
        const endpoint = state.endpoints.get(command.endpointId);
        if (state.userId === null || !endpoint) throw notFound();
        if (!endpoint.disabled) return [];
        return [{ type: "WebhookEndpointEnabled", data: { userId: state.userId, endpointId: command.endpointId, enabledAt: command.now } }];
      }
      default:
        return assertNever(command);
    }
  },
};
