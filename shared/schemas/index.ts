export * from './common.js';
export * from './admin.js';
export * from './projects.js';
export * from './automations.js';
export * from './env-vars.js';
export * from './sessions.js';
export * from './events.js';
export * from './skills.js';
