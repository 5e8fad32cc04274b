/**
 * Every service the suite starts (in process, as a process, behind a browser) has a newcomer's settings: no
 * PUBLIC_URL and the spec's limits (10 requests a minute a token, 5 registrations a minute an address, 5 logins a
 * minute an email). A test that drives the API faster than a person, where the limits are not what it tests,
 * raises the ones it needs by name, so a reader sees that it does not run as people do.
 */

/** A script's pace on one token: more than 10 requests a minute. */
export const manyRequestsPerToken = { RATE_LIMIT_PER_MINUTE: "100000" } as const;

/** More than 5 accounts a minute from one address (the suite's clients all come from 127.0.0.1). */
export const manyRegistrations = { REGISTRATIONS_PER_MINUTE: "100000" } as const;

/** More than 5 logins a minute with one email address. */
export const manyLogins = { LOGIN_ATTEMPTS_PER_MINUTE: "100000" } as const;

/** All three: a test that scripts many accounts, each making many calls. */
export const scriptPace = { ...manyRequestsPerToken, ...manyRegistrations, ...manyLogins } as const;
