// The spec's header names and their Docker twins: responses carry both, requests may use either.

export const twinHeaders = {
  contentDigest: ['Svc-Content-Digest', 'Docker-Content-Digest'],
  uploadUuid: ['Svc-Upload-UUID', 'Docker-Upload-UUID'],
  apiVersion: ['Svc-Distribution-API-Version', 'Docker-Distribution-API-Version'],
} as const;

export type TwinHeader = keyof typeof twinHeaders;

export interface HeaderSink {
  setHeader(name: string, value: string | number | readonly string[]): unknown;
}

export function setTwin(res: HeaderSink, header: TwinHeader, value: string): void {
  for (const name of twinHeaders[header]) res.setHeader(name, value);
}

export const apiVersion = 'registry/2.0';
