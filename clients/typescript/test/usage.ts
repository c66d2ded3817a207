// Type-checked (npm run typecheck), never run: the generated types hold
// a call's path, parameters and body to the document.
import { createHookdClient, type Schemas } from "../index.js";

const hookd = createHookdClient({ baseUrl: "http://127.0.0.1:8080", token: "hk_x" });

export async function usage(): Promise<Schemas["Delivery"] | undefined> {
  const { data: endpoint } = await hookd.POST("/v1/endpoints", {
    body: { url: "https://example.com/hooks", event_types: ["order.*"], retry_schedule: ["30s"] },
  });
  const { data: sent, error } = await hookd.POST("/v1/events", {
    body: { type: "order.created", payload: { id: 1 }, tenant_id: endpoint?.tenant_id },
    params: { header: { "Idempotency-Key": "evt_1" } },
  });
  if (error) {
    const code: Schemas["ErrorDetail"]["code"] = error.error.code;
    throw new Error(code);
  }
  const { data } = await hookd.GET("/v1/deliveries/{id}", { params: { path: { id: sent.deliveries[0].id } } });
  return data;
}
