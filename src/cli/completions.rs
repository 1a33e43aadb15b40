//! `fsfit completions`: its argument (the shell) is a field of the command
//! itself; here is its long help.

/// `fsfit completions --help`'s text above the argument.
pub const LONG_ABOUT: &str = "Prints a completion script for SHELL, generated from fsfit's own \
argument definitions.\n\n\
  fsfit completions bash > /etc/bash_completion.d/fsfit\n\
  fsfit completions zsh > \"${fpath[1]}/_fsfit\"\n\
  fsfit completions fish > ~/.config/fish/completions/fsfit.fish";
