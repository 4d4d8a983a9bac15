// Engine calls the e2e make beside the page: through the gateway with the launch token, failing
// with the engine's answer when it is not a success.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { pushTestImage } from './registry-push';
import type { WebApp } from './web-mode-fixture';

export type EngineCall = (method: string, path: string, body?: unknown) => Promise<unknown>;

export function engineCaller(app: WebApp): EngineCall {
  return async (method, path, body) => {
    const res = await fetch(`${app.base}/engine${path}`, {
      method,
      headers: { authorization: `Bearer ${app.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${text}`);
    return text ? (JSON.parse(text) as unknown) : {};
  };
}

/** Pushes the runnable busybox test image to the app's registry and pulls it into the engine. */
export async function pullBusybox(app: WebApp): Promise<string> {
  await pushTestImage(app.registryUrl, 'e2e/busybox', '1.0', true);
  const image = `${app.registryUrl.replace('http://', '')}/e2e/busybox:1.0`;
  const pulled = await fetch(`${app.base}/engine/images/create?fromImage=${encodeURIComponent(image)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${app.token}` },
  });
  await pulled.text();
  assert.equal(pulled.status, 200);
  return image;
}

/** The first three octets of a /24 under 10.213.0.0/16 that nothing on this machine routes yet. */
export function unusedSubnet(): string {
  const routes = execFileSync('ip', ['-4', 'route'], { encoding: 'utf8' });
  for (;;) {
    const third = 100 + Math.floor(Math.random() * 150);
    if (!routes.includes(`10.213.${third}.`)) return `10.213.${third}`;
  }
}
