# Homebrew formula for mpsfix, building the head of its repository.
#
# Use it straight from a checkout:
#
#   brew install --HEAD --formula ./packaging/homebrew/mpsfix.rb
#
# or copy it into a tap (Formula/mpsfix.rb) and `brew install --HEAD mpsfix`.
#
# It builds against Homebrew's tree-sitter (make TREE_SITTER=system), not the
# runtime pinned in grammars/tree-sitter.pin that a plain `make` compiles in.
# The Python grammar is still the pinned one: Homebrew has no network during
# the build, so it comes in as a resource and is copied into grammars/cache/,
# where grammars/fetch.sh checks it against grammars/tree-sitter-python.pin
# instead of running npm.
#
# Not run yet: this formula was written where no Mac was available.
class Mpsfix < Formula
  desc "Find and fix PyTorch code that breaks on Apple's MPS backend"
  homepage "https://github.com/mpsfix/mpsfix"
  # No release yet: a tagged release adds `url` and `sha256` here.
  # No `license` stanza: the project has no license file yet.
  head "https://github.com/mpsfix/mpsfix.git", branch: "main"

  depends_on "pkgconf" => :build
  depends_on "jansson"
  depends_on "libgit2"
  depends_on "libyaml"
  depends_on "tree-sitter"

  # the npm tarball of the pinned grammar (grammars/tree-sitter-python.pin)
  resource "tree-sitter-python" do
    url "https://registry.npmjs.org/tree-sitter-python/-/tree-sitter-python-0.23.6.tgz"
    sha256 "aab5b860d93dbf84b37fed532f7dacc0468ede5387d0c74911d68f964287662a"
  end

  def install
    # the tarball itself, not its unpacked stage: grammars/fetch.sh verifies
    # and unpacks it
    r = resource("tree-sitter-python")
    r.fetch
    (buildpath/"grammars/cache").mkpath
    cp r.cached_download, buildpath/"grammars/cache/tree-sitter-python-0.23.6.tgz"

    system "make", "TREE_SITTER=system", "PREFIX=#{prefix}", "install"
  end

  test do
    (testpath/"train.py").write <<~PYTHON
      import torch
      x = torch.randn(8, device="mps")
      s, m = torch.std_mean(x)
    PYTHON
    # exit status 1: findings, printed on stdout as PATH:LINE:COL: RULE ...
    output = shell_output("#{bin}/mpsfix check #{testpath}/train.py", 1)
    assert_match "MPS001", output
    assert_match "(system)", shell_output("#{bin}/mpsfix --version")
  end
end
