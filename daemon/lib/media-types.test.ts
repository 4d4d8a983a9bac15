import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MediaTypes,
  canonicalMediaType,
  isImageConfig,
  isImageIndex,
  isImageManifest,
  isLayer,
  isNondistributableLayer,
  isSchema1Manifest,
  layerCompression,
  svcTwin,
} from './media-types';

test('svc twins classify as their Docker types', () => {
  assert.equal(canonicalMediaType(MediaTypes.svcManifest), MediaTypes.dockerManifest);
  assert.equal(svcTwin(MediaTypes.dockerManifestList), MediaTypes.svcManifestList);
  assert.equal(svcTwin(MediaTypes.ociManifest), undefined);
  assert.ok(isImageManifest(MediaTypes.svcManifest));
  assert.ok(isImageIndex(MediaTypes.svcManifestList));
  assert.ok(isSchema1Manifest(MediaTypes.svcSchema1Signed));
  assert.ok(isImageConfig(MediaTypes.svcConfig));
  assert.ok(isLayer(MediaTypes.svcLayerGzip));
});

test('classification of OCI and Docker types', () => {
  assert.ok(isImageManifest(`${MediaTypes.ociManifest}; charset=utf-8`));
  assert.ok(isImageIndex(MediaTypes.ociIndex));
  assert.ok(!isImageManifest(MediaTypes.ociIndex));
  assert.ok(!isLayer(MediaTypes.ociConfig));
  assert.ok(isNondistributableLayer(MediaTypes.dockerLayerForeign));
  assert.ok(!isNondistributableLayer(MediaTypes.ociLayerGzip));
  assert.equal(layerCompression(MediaTypes.dockerLayerGzip), 'gzip');
  assert.equal(layerCompression(MediaTypes.ociLayerZstd), 'zstd');
  assert.equal(layerCompression(MediaTypes.ociLayer), 'none');
});
