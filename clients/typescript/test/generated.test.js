// schema.d.ts is what openapi-typescript makes of the OpenAPI document
// now: `npm run generate` (or make generate) after changing the document.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";

const here = resolve(import.meta.dirname, "..");

test("schema.d.ts is generated from the current document", () => {
  const dir = mkdtempSync(join(tmpdir(), "hookd-ts-gen-"));
  try {
    const out = join(dir, "schema.d.ts");
    const run = spawnSync("npx", ["--no-install", "openapi-typescript", "../../internal/api/openapi.yaml", "-o", out],
      { cwd: here, encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    assert.ok(readFileSync(out, "utf8") === readFileSync(join(here, "schema.d.ts"), "utf8"),
      "clients/typescript/schema.d.ts is stale: run make generate and commit it");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
