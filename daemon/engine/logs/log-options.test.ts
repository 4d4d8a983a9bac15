import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidParameterError, NotImplementedError } from '../../api/errors';
import { formatLogAttrs, formatLogMessage } from './log-format';
import { logAttributes, parseHumanSize, parseJsonFileOptions } from './log-options';
import { fixedTimestamp, formatTimestamp, parseTimestamp, parseUnixTimestamp } from './log-time';

describe('json-file log options', () => {
  test('sizes are decimal as go-units FromHumanSize reads them', () => {
    assert.equal(parseHumanSize('10m'), 10_000_000);
    assert.equal(parseHumanSize('1k'), 1000);
    assert.equal(parseHumanSize('2.5MB'), 2_500_000);
    assert.equal(parseHumanSize('100'), 100);
    assert.throws(() => parseHumanSize('ten'), InvalidParameterError);
  });

  test('max-size and max-file', () => {
    assert.deepEqual(
      { ...parseJsonFileOptions({ 'max-size': '10m', 'max-file': '3' }) },
      {
        maxSize: 10_000_000,
        maxFile: 3,
        labels: [],
        labelsRegex: undefined,
        env: [],
        envRegex: undefined,
        tag: undefined,
      },
    );
    assert.equal(parseJsonFileOptions({}).maxFile, 1);
    assert.equal(parseJsonFileOptions({}).maxSize, undefined);
    assert.throws(() => parseJsonFileOptions({ 'max-file': '0' }), /max-file cannot be less than 1/);
    assert.throws(() => parseJsonFileOptions({ 'max-file': 'x' }), InvalidParameterError);
    assert.throws(() => parseJsonFileOptions({ 'max-size': '0' }), /max-size must be a positive number/);
    assert.throws(
      () => parseJsonFileOptions({ 'max-buffer': '1' }),
      /unknown log opt 'max-buffer' for json-file log driver/,
    );
    assert.throws(() => parseJsonFileOptions({ compress: 'true' }), NotImplementedError);
    assert.equal(parseJsonFileOptions({ compress: 'false' }).maxFile, 1);
  });

  test('labels, env and tag become the attributes of each line', () => {
    const options = parseJsonFileOptions({
      labels: 'com.a,missing',
      'env-regex': '^APP_',
      env: 'HOME',
      tag: '{{.Name}}/{{.ID}}',
    });
    const attrs = logAttributes(options, {
      id: 'abcdef0123456789'.repeat(4),
      name: '/web',
      imageId: 'sha256:' + '1'.repeat(64),
      imageName: 'busybox',
      labels: { 'com.a': 'x y', 'com.b': 'no' },
      env: ['HOME=/root', 'APP_MODE=prod', 'PATH=/bin'],
    });
    assert.deepEqual(attrs, { 'com.a': 'x y', HOME: '/root', APP_MODE: 'prod', tag: 'web/abcdef012345' });
    assert.throws(
      () =>
        logAttributes(parseJsonFileOptions({ tag: '{{.Nope}}' }), {
          id: 'a',
          name: 'b',
          imageId: 'c',
          imageName: 'd',
          labels: {},
          env: [],
        }),
      InvalidParameterError,
    );
  });
});

describe('log timestamps', () => {
  test('RFC 3339 with nanoseconds, trimmed in files and fixed for the API', () => {
    const ns = 1_700_000_000_123_450_000n;
    assert.equal(formatTimestamp(ns), '2023-11-14T22:13:20.12345Z');
    assert.equal(formatTimestamp(ns, true), '2023-11-14T22:13:20.123450000Z');
    assert.equal(formatTimestamp(1_700_000_000_000_000_000n), '2023-11-14T22:13:20Z');
    assert.equal(parseTimestamp('2023-11-14T22:13:20.12345Z'), ns);
    assert.equal(parseTimestamp('2023-11-14T23:13:20.12345+01:00'), ns);
    assert.equal(fixedTimestamp('2023-11-14T22:13:20Z'), '2023-11-14T22:13:20.000000000Z');
    assert.equal(fixedTimestamp('2023-11-14T23:13:20.5+01:00'), '2023-11-14T22:13:20.500000000Z');
  });

  test('since/until are seconds with an optional decimal fraction', () => {
    assert.equal(parseUnixTimestamp('1700000000'), 1_700_000_000_000_000_000n);
    assert.equal(parseUnixTimestamp('1700000000.5'), 1_700_000_000_500_000_000n);
    assert.equal(parseUnixTimestamp('1700000000.000000001'), 1_700_000_000_000_000_001n);
    assert.throws(() => parseUnixTimestamp('yesterday'), InvalidParameterError);
    assert.throws(() => parseUnixTimestamp('-5'), InvalidParameterError);
  });
});

describe('log line format', () => {
  test('timestamps and details go in front, details as sorted query-escaped pairs', () => {
    const msg = {
      source: 'stdout' as const,
      line: 'hi\n',
      time: '2023-11-14T22:13:20.123450000Z',
      attrs: { b: 'x y', a: '1&2' },
    };
    assert.equal(formatLogAttrs(msg.attrs), 'a=1%262,b=x+y');
    assert.equal(formatLogMessage(msg, { timestamps: false, details: false }), 'hi\n');
    assert.equal(
      formatLogMessage(msg, { timestamps: true, details: true }),
      '2023-11-14T22:13:20.123450000Z a=1%262,b=x+y hi\n',
    );
    assert.equal(
      formatLogMessage({ ...msg, attrs: undefined }, { timestamps: false, details: true }),
      ' hi\n',
    );
  });
});
