// What a sealed env var value is bound to (the AES-GCM associated data): its environment and
// name, so a sealed value cannot be moved to another variable.
export const envVarSealContext = (environmentId: string, name: string) => `env-var:${environmentId}:${name}`;
