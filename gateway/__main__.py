import sys

from gateway._entry import main

sys.exit(main())
