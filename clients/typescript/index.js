// A typed client for hookd's HTTP API: openapi-fetch over the types
// openapi-typescript generates from the API's OpenAPI document
// (schema.d.ts; `npm run generate` regenerates it).
import createClient from "openapi-fetch";

/**
 * Creates a client of one hookd API.
 *
 * @param {import("./index.js").HookdClientOptions} options
 */
export function createHookdClient({ baseUrl, token, headers, ...rest }) {
  if (!baseUrl) {
    throw new Error("baseUrl is required, such as http://127.0.0.1:8080");
  }
  return createClient({
    baseUrl: baseUrl.replace(/\/+$/, ""),
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers },
    ...rest,
  });
}
