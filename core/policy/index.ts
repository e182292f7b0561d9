export * from './dag-policy.ts';
export * from './namespace.ts';
export * from './pod-standards.ts';
export * from './settings.ts';
