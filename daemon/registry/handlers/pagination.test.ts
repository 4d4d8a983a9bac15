import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { http } from '../../testing/http-client';
import { pushSmallImage, putManifest } from '../testing/registry-client';
import { startRegistry, type RegistryProcess } from '../testing/registry-process';

let reg: RegistryProcess;
const repos = ['p/a', 'p/b', 'p/c', 'p/d', 'q'];
const tags = ['1.0', '1.1', '2.0', 'latest', 'z'];
before(async () => {
  reg = await startRegistry({ config: { pageCap: 3 } });
  for (const name of repos) {
    const body = await pushSmallImage(reg.url, name, name);
    for (const tag of name === 'p/a' ? tags : ['latest']) await putManifest(reg.url, name, tag, body);
  }
});
after(() => reg.stop());

describe('tags/list pagination', () => {
  test('n and last, lexical order, Link exactly as the spec while more remain', async () => {
    let res = await http(`${reg.url}/v2/p/a/tags/list?n=2`);
    assert.deepEqual(res.json(), { name: 'p/a', tags: ['1.0', '1.1'] });
    assert.equal(res.headers.link, '</v2/p/a/tags/list?n=2&last=1.1>; rel="next"');
    res = await http(`${reg.url}/v2/p/a/tags/list?n=2&last=1.1`);
    assert.deepEqual(res.json<{ tags: string[] }>().tags, ['2.0', 'latest']);
    assert.equal(res.headers.link, '</v2/p/a/tags/list?n=2&last=latest>; rel="next"');
    res = await http(`${reg.url}/v2/p/a/tags/list?n=2&last=latest`);
    assert.deepEqual(res.json<{ tags: string[] }>().tags, ['z']);
    assert.equal(res.headers.link, undefined);
  });

  test('n equal to what remains: everything, no Link', async () => {
    const res = await http(`${reg.url}/v2/p/a/tags/list?n=2&last=2.0`);
    assert.deepEqual(res.json<{ tags: string[] }>().tags, ['latest', 'z']);
    assert.equal(res.headers.link, undefined);
    // n above the cap is cut to the cap (3 here), with a Link to the rest.
    const capped = await http(`${reg.url}/v2/p/a/tags/list?n=100`);
    assert.equal(capped.json<{ tags: string[] }>().tags.length, 3);
    assert.equal(capped.headers.link, '</v2/p/a/tags/list?n=3&last=2.0>; rel="next"');
  });

  test('without n the server cap applies and Link is sent', async () => {
    const res = await http(`${reg.url}/v2/p/a/tags/list`);
    assert.deepEqual(res.json<{ tags: string[] }>().tags, ['1.0', '1.1', '2.0']);
    assert.equal(res.headers.link, '</v2/p/a/tags/list?n=3&last=2.0>; rel="next"');
  });

  test('last past the end, last between entries, n=0', async () => {
    assert.deepEqual((await http(`${reg.url}/v2/p/a/tags/list?last=zz`)).json<{ tags: string[] }>().tags, []);
    assert.deepEqual(
      (await http(`${reg.url}/v2/p/a/tags/list?last=1.5&n=1`)).json<{ tags: string[] }>().tags,
      ['2.0'],
    );
    const zero = await http(`${reg.url}/v2/p/a/tags/list?n=0`);
    assert.deepEqual(zero.json<{ tags: string[] }>().tags, []);
    assert.equal(zero.headers.link, undefined);
  });

  test('an invalid n is PAGINATION_NUMBER_INVALID; an unknown repository is NAME_UNKNOWN', async () => {
    for (const n of ['-1', 'abc', '1.5']) {
      const res = await http(`${reg.url}/v2/p/a/tags/list?n=${n}`);
      assert.equal(res.status, 400, n);
      assert.equal(res.json<{ errors: { code: string }[] }>().errors[0].code, 'PAGINATION_NUMBER_INVALID');
    }
    const res = await http(`${reg.url}/v2/nope/tags/list`);
    assert.equal(res.status, 404);
    assert.equal(res.json<{ errors: { code: string }[] }>().errors[0].code, 'NAME_UNKNOWN');
  });
});

describe('catalog pagination', () => {
  test('pages follow Link to the end; names in lexical order', async () => {
    const seen: string[] = [];
    let next: string | undefined = '/v2/_catalog?n=2';
    let pages = 0;
    while (next && pages < 10) {
      const res = await http(`${reg.url}${next}`);
      assert.equal(res.status, 200);
      seen.push(...res.json<{ repositories: string[] }>().repositories);
      next = (res.headers.link as string | undefined)?.match(/^<([^>]+)>; rel="next"$/)?.[1];
      pages++;
    }
    assert.deepEqual(seen, repos);
    assert.equal(pages, 3);
  });

  test('Link carries the last entry URL-encoded', async () => {
    const res = await http(`${reg.url}/v2/_catalog?n=1`);
    assert.deepEqual(res.json(), { repositories: ['p/a'] });
    assert.equal(res.headers.link, '</v2/_catalog?n=1&last=p%2Fa>; rel="next"');
    const all = await http(`${reg.url}/v2/_catalog?last=p%2Fc`);
    assert.deepEqual(all.json(), { repositories: ['p/d', 'q'] });
    assert.equal(all.headers.link, undefined);
  });
});
