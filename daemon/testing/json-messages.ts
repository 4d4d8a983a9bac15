// Reading an Engine API JSON progress stream (pull, push, import, load) in tests.
import type { JsonMessage } from '../api/image-types';
import type { EngineResponse } from './engine-client';

export type StreamMessage = JsonMessage & { error?: string; errorDetail?: { message: string } };

export function jsonMessages(res: EngineResponse): StreamMessage[] {
  return res
    .text()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as StreamMessage);
}

/** The in-stream error, if any. */
export function streamError(res: EngineResponse): string | undefined {
  return jsonMessages(res).find((m) => m.error)?.error;
}
