// Why this configuration:
// - Ink 6 is ESM-only and its dependency yoga-layout uses top-level await, so jest must run
//   in native ESM mode: package.json has "type": "module" and `npm test` starts node with
//   --experimental-vm-modules.
// - ts-jest's ESM preset compiles the TypeScript tests in place (no separate build step);
//   isolatedModules (set in tsconfig.test.json: ts-jest's own option of that name is deprecated
//   and warns at every run) keeps it fast (type checking is `npm run build`'s job, run by CI first).
// - Sources import siblings as "./x.js" (NodeNext resolution); the mapper strips the
//   extension so jest finds the .ts file.
/** @type {import('jest').Config} */
export default {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/dwarf/test'],
  testMatch: ['**/*.test.ts', '**/*.test.tsx'],
  extensionsToTreatAsEsm: ['.ts', '.tsx'],
  // tui/ imports the engine's public API as '#engine' (package.json "imports"; see tui/tsconfig.json)
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1', '^#engine$': '<rootDir>/src/engine/index.ts' },
  transform: {
    '^.+\\.tsx?$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.test.json' }],
  },
  testTimeout: 60000,
};
