// The client against a real `hookd dev` on free ports: a tenant, an
// endpoint at a receiver that verifies the Standard Webhooks signature,
// an event, its delivery and timeline, a dead letter and its redrive.
//
// HOOKD_BIN names a hookd binary; without it the test builds one.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";

import { createHookdClient } from "../index.js";

const repo = resolve(import.meta.dirname, "../../..");
const work = mkdtempSync(join(tmpdir(), "hookd-ts-"));
let hookd, api, receiver;

/** A free TCP port on the loopback. */
function freePort() {
  return new Promise((ok, fail) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
    srv.on("error", fail);
  });
}

/** Polls fn until it returns a truthy value, or fails after ms. */
async function eventually(fn, ms = 30_000, what = "condition") {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts `hookd dev` and resolves with its API URL once it runs. */
async function startHookd() {
  let bin = process.env.HOOKD_BIN;
  if (!bin) {
    bin = join(work, "hookd");
    const built = spawnSync("go", ["build", "-o", bin, "./cmd/hookd"], { cwd: repo, stdio: "inherit" });
    assert.equal(built.status, 0, "go build ./cmd/hookd");
  }
  const dataDir = join(work, "data");
  const args = ["dev", "--data-dir", dataDir, "--http-addr", "127.0.0.1:0",
    "--temporal-addr", `127.0.0.1:${await freePort()}`, "--ui-addr", "", "--log-level", "warn"];
  hookd = spawn(resolve(repo, bin), args, { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  hookd.stderr.on("data", (chunk) => (out += chunk)); // shown if it fails to start
  const url = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`hookd dev did not start within 120 s:\n${out}`)), 120_000);
    hookd.on("exit", (code) => fail(new Error(`hookd dev exited (${code}):\n${out}`)));
    hookd.stdout.on("data", (chunk) => {
      out += chunk;
      const m = out.match(/API:\s+(http:\/\/\S+)/);
      if (m && out.includes("is running")) {
        clearTimeout(timer);
        ok(m[1]);
      }
    });
  });
  return { url, key: readFileSync(join(dataDir, "api-key"), "utf8").trim() };
}

/** A receiver that verifies each delivery's signature and answers status(path). */
function startReceiver() {
  const r = { secret: "", hits: [], status: () => 200 };
  r.server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      let verified = false;
      try {
        new Webhook(r.secret).verify(body, req.headers);
        verified = true;
      } catch {}
      r.hits.push({ path: req.url, id: req.headers["webhook-id"], body, verified });
      res.writeHead(verified ? r.status(req.url) : 401).end();
    });
  });
  return new Promise((ok) => r.server.listen(0, "127.0.0.1", () => {
    r.url = `http://127.0.0.1:${r.server.address().port}`;
    ok(r);
  }));
}

before(async () => {
  const started = await startHookd();
  api = createHookdClient({ baseUrl: started.url, token: started.key });
  api.url = started.url;
  receiver = await startReceiver();
});

after(async () => {
  receiver?.server.close();
  if (hookd && hookd.exitCode === null) {
    const exited = new Promise((ok) => hookd.on("exit", ok));
    hookd.kill("SIGINT");
    await exited;
  }
  rmSync(work, { recursive: true, force: true });
});

test("the document is public and carries the server's version", async () => {
  const anonymous = createHookdClient({ baseUrl: api.url });
  const { data, response } = await anonymous.GET("/v1/openapi.json");
  assert.equal(response.status, 200);
  assert.equal(data.openapi, "3.0.3");
  assert.ok(data.info.version);
  const { error } = await anonymous.GET("/v1/endpoints");
  assert.equal(error.error.code, "unauthorized");
});

test("an event reaches a verifying receiver, then a dead letter is redriven", async () => {
  const tenant = `ts-${Date.now()}`;
  const put = await api.PUT("/v1/tenants/{id}", { params: { path: { id: tenant } }, body: { name: "TypeScript" } });
  assert.equal(put.response.status, 201);

  const { data: ep, error } = await api.POST("/v1/endpoints", {
    body: { url: `${receiver.url}/ok`, event_types: ["ts.*"], tenant_id: tenant, retry_schedule: ["1s"] },
  });
  assert.equal(error, undefined);
  assert.equal(ep.tenant_id, tenant);
  receiver.secret = ep.secret;

  const sent = await api.POST("/v1/events", {
    body: { type: "ts.created", payload: { order: 42 }, tenant_id: tenant },
    params: { header: { "Idempotency-Key": `evt_ts_${Date.now()}` } },
  });
  assert.equal(sent.response.status, 202);
  const deliveryID = sent.data.deliveries[0].id;

  const hit = await eventually(() => receiver.hits.find((h) => h.id === deliveryID), 30_000, "the delivery");
  assert.ok(hit.verified, "the signature verifies with standardwebhooks");
  assert.deepEqual(JSON.parse(hit.body), { order: 42 });

  const delivered = await eventually(async () => {
    const { data } = await api.GET("/v1/deliveries/{id}", { params: { path: { id: deliveryID } } });
    return data?.status === "delivered" && data;
  }, 30_000, "delivered");
  assert.equal(delivered.attempts, 1);
  assert.equal(delivered.timeline[0].kind, "attempt");
  assert.equal(delivered.timeline[0].status, 200);

  // The receiver refuses the next one with 400: a permanent failure, so a
  // dead letter at once.
  receiver.status = () => 400;
  const failing = await api.POST("/v1/events", { body: { type: "ts.failing", payload: { n: 1 }, tenant_id: tenant } });
  assert.equal(failing.response.status, 202);
  const deadID = failing.data.deliveries[0].id;
  const dead = await eventually(async () => {
    const { data } = await api.GET("/v1/dead-letters/{id}", { params: { path: { id: deadID } } });
    return data?.state === "waiting" && data;
  }, 30_000, "the dead letter");
  assert.equal(dead.reason, "failed");
  assert.equal(dead.last_status, 400);

  receiver.status = () => 200;
  const redrive = await api.POST("/v1/dead-letters/{id}/redrive", {
    params: { path: { id: deadID } },
    body: { reason: "receiver fixed" },
  });
  assert.equal(redrive.response.status, 202);
  const again = await eventually(async () => {
    const { data } = await api.GET("/v1/deliveries/{id}", { params: { path: { id: deadID } } });
    return data?.status === "delivered" && data;
  }, 30_000, "the redriven delivery");
  assert.equal(again.runs, 2);
  assert.ok(again.timeline.some((e) => e.kind === "redrive" && e.redrive.reason === "receiver fixed"));
});
