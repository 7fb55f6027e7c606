"""The one error type of the policy layer."""


class PolicyError(Exception):
    """The rules could not be loaded. `errors` holds located messages
    (`file:line: key.path: problem`), one per problem."""

    def __init__(self, errors: list[str]):
        self.errors = list(errors)
        super().__init__("\n".join(self.errors))
