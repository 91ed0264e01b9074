"""What more than one test module uses: the engine double (`fakes`), the in-process app
driver (`harness`), server processes and their ports, document doubles, the replica cluster,
the page server, the kustomize renderer. Test folders hold only tests and their conftests."""
