import type { Client, ClientOptions } from "openapi-fetch";
import type { components, operations, paths } from "./schema.js";

export type { components, operations, paths };

/** The API's named schemas: `Schemas["Endpoint"]`, `Schemas["ErrorBody"]`, ... */
export type Schemas = components["schemas"];

export interface HookdClientOptions extends ClientOptions {
  /** The API's base URL, such as `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** The platform's API key, or a tenant token (`htk_...`); none for the public routes. */
  token?: string;
}

/** A client of one hookd API; each call is typed by the OpenAPI document. */
export function createHookdClient(options: HookdClientOptions): Client<paths>;
