import assert from 'node:assert/strict';
import { test } from 'node:test';
import { opensInBrowser, permissionAllowed, staysInApp } from './window-policy';

const gateway = 'http://127.0.0.1:8080';

test('the window navigates only on the gateway origin', () => {
  assert.equal(staysInApp('http://127.0.0.1:8080/#/images', gateway), true);
  assert.equal(staysInApp('http://127.0.0.1:8080', gateway), true);
  assert.equal(staysInApp('http://127.0.0.1:80801/', gateway), false, 'a longer port with the same prefix');
  assert.equal(
    staysInApp('http://127.0.0.1:8080.evil.example/', gateway),
    false,
    'a host with the same prefix',
  );
  assert.equal(staysInApp('http://localhost:8080/', gateway), false);
  assert.equal(staysInApp('file:///etc/passwd', gateway), false);
  assert.equal(staysInApp('not a url', gateway), false);
});

test('only web links go to the browser', () => {
  assert.equal(opensInBrowser('http://127.0.0.1:3000/'), true);
  assert.equal(opensInBrowser('https://example.test/'), true);
  for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'nonsense'])
    assert.equal(opensInBrowser(url), false, url);
});

test('pages get no permission but writing to the clipboard', () => {
  assert.equal(permissionAllowed('clipboard-sanitized-write'), true);
  for (const p of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'fullscreen'])
    assert.equal(permissionAllowed(p), false, p);
});
