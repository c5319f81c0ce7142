from import_policy.cli import main

raise SystemExit(main())
