// Every operation of the route table with the handler that serves it.
import type { RouteName } from '../api/routes';
import { apiVersionCheck } from './base';
import { deleteBlob, getBlob } from './blobs';
import { getCatalog } from './catalog';
import type { Handler } from './context';
import { deleteManifest, getManifest, putManifest } from './manifests';
import { getReferrers } from './referrers';
import { getTags } from './tags';
import { getToken } from './token';
import {
  cancelBlobUpload,
  getUploadStatus,
  patchBlobData,
  putBlobUploadComplete,
  startBlobUpload,
} from './uploads';

export const handlers: Record<RouteName, Handler> = {
  apiVersionCheck,
  getCatalog,
  getTags,
  getManifest,
  putManifest,
  deleteManifest,
  getReferrers,
  getBlob,
  deleteBlob,
  startBlobUpload,
  getUploadStatus,
  patchBlobData,
  putBlobUploadComplete,
  cancelBlobUpload,
  getToken,
};
