// The TypeScript receiver of the hmac-sha256 scheme in docs/signatures.md,
// transpiled as written and run against vectors computed from the
// formula outside Node (Python's hmac module), the MailFrame and
// Postfleet contracts and a rotation's two signatures.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { after, test } from "node:test";
import assert from "node:assert/strict";
import ts from "typescript";

const doc = readFileSync(resolve(import.meta.dirname, "../../../docs/signatures.md"), "utf8");
const marker = "<!-- verify-hmac-sha256.ts";
const start = doc.indexOf("```ts\n", doc.indexOf(marker));
const source = doc.slice(start + "```ts\n".length, doc.indexOf("\n```", start + 1));
const dir = mkdtempSync(join(tmpdir(), "hookd-signatures-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, "verify.mjs");
writeFileSync(file, ts.transpileModule(source, {
  compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, strict: true },
}).outputText);
const { verifyHmacSha256 } = await import(pathToFileURL(file).href);

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const other = "whsec_plLl1Ih0jCPjyg8BoLMxbdaQeGnAQQ2r";
const body = Buffer.from('{"test": 2432232314}');
const stamp = 1614265330;
const bodyHex = "80ec8a89ce3cd22133a1066caecb4d04fea7467657c8514d717ec42c38a5c94c";
const otherHex = "ec53dae83150f26c6ff25ddd7d9643957d81507bf59087cdc0b8099377e3e645";
const stampBodyBase64 = "LjffXUoCjFGn8xM9ZK4eMA0sLJAPGx1J1Daa0lMPiWQ=";

const mailFrame = { header: "MailFrame-Signature", prefix: "sha256=", delivery_id_header: "X-MailFrame-Delivery-Id" };
const postfleet = { header: "Postfleet-Signature", encoding: "base64", content: "timestamp.body", timestamp_header: "Postfleet-Timestamp" };

test("MailFrame: sha256=<hex> of the raw body", () => {
  const headers = { "mailframe-signature": "sha256=" + bodyHex, "x-mailframe-delivery-id": "dlv_1" };
  assert.equal(verifyHmacSha256(mailFrame, secret, headers, body), "dlv_1");
  assert.throws(() => verifyHmacSha256(mailFrame, secret, headers, Buffer.from(body + " ")), /no matching/);
  assert.throws(() => verifyHmacSha256(mailFrame, other, headers, body), /no matching/);
  assert.throws(() => verifyHmacSha256(mailFrame, secret, { ...headers, "mailframe-signature": bodyHex }, body), /no matching/);
  assert.throws(() => verifyHmacSha256(mailFrame, secret, { "mailframe-signature": "sha256=" + bodyHex }, body), /missing/);
});

test("rotation: either secret verifies one of the comma-separated signatures", () => {
  const headers = { "mailframe-signature": `sha256=${otherHex},sha256=${bodyHex}`, "x-mailframe-delivery-id": "dlv_2" };
  assert.equal(verifyHmacSha256(mailFrame, secret, headers, body), "dlv_2");
  assert.equal(verifyHmacSha256(mailFrame, other, headers, body), "dlv_2");
});

test("Postfleet: base64 of ${timestamp}.${rawBody}, within the tolerance", () => {
  const headers = { "postfleet-signature": stampBodyBase64, "postfleet-timestamp": String(stamp), "webhook-id": "dlv_3" };
  assert.equal(verifyHmacSha256(postfleet, secret, headers, body, 300, stamp * 1000), "dlv_3");
  assert.throws(() => verifyHmacSha256(postfleet, secret, headers, body, 300, (stamp + 301) * 1000), /tolerance/);
  assert.throws(() => verifyHmacSha256(postfleet, secret, { ...headers, "postfleet-timestamp": String(stamp + 1) }, body, 300, stamp * 1000), /no matching/);
});
