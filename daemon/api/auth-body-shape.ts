// The JSON types of POST /auth's body (Docker's AuthConfig). The decoding drops a field of
// another type, so the login would go on without it (without its serveraddress, to Docker
// Hub): such a body is refused naming the field instead.
import type { BodyShape } from './container-body-shape';

export const authConfigShape: BodyShape = {
  username: 'string',
  password: 'string',
  auth: 'string',
  email: 'string',
  serveraddress: 'string',
  identitytoken: 'string',
  registrytoken: 'string',
};
