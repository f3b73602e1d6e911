// pnpm hooks for this workspace.
module.exports = {
  hooks: {
    // Shapes the package.json that `pnpm pack` and `pnpm publish` put in a tarball: a consumer
    // installs only `dependencies`, and the devDependencies would name workspace packages that
    // are never published (the private contract, which tsup bundles into the SDK).
    beforePacking(pkg) {
      delete pkg.devDependencies;
      return pkg;
    },
  },
};
