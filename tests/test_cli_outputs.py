"""The command's output files: a model or prediction file is written atomically, keeps the mode
of the file it replaces, and never replaces a symbolic link, a FIFO, a directory, a device or
one of the command's own inputs; those are refused before the fit runs."""

from pathlib import Path

import pytest
from conftest import CLI_FIT_ARGS, fail_before_fit


def _cli(argv, capsys):
    from unlabeled.cli import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_refit_keeps_file_mode(cli_data, tmp_path, capsys):
    model = tmp_path / "m.skops"
    assert _cli(["fit", cli_data / "train.csv", "-o", model, *CLI_FIT_ARGS], capsys)[0] == 0
    model.chmod(0o600)
    assert _cli(["fit", cli_data / "train.csv", "-o", model, *CLI_FIT_ARGS], capsys)[0] == 0
    assert (model.stat().st_mode & 0o777) == 0o600


@pytest.mark.parametrize("kind", ["symlink", "fifo", "directory", "trailing_slash", "input"])
def test_fit_refuses_bad_outputs(cli_data, tmp_path, capsys, monkeypatch, kind):
    import os

    target = tmp_path / "target.skops"
    target.write_text("keep me")
    out = {
        "symlink": tmp_path / "link.skops",
        "fifo": tmp_path / "fifo",
        "directory": tmp_path / "dir",
        "trailing_slash": f"{tmp_path / 'new'}/",
        "input": cli_data / "train.csv",
    }[kind]
    if kind == "symlink":
        os.symlink(target, out)
    elif kind == "fifo":
        os.mkfifo(out)
    elif kind == "directory":
        out.mkdir()
    fail_before_fit(monkeypatch)
    code, stdout, err = _cli(["fit", cli_data / "train.csv", "-o", out, *CLI_FIT_ARGS], capsys)
    assert code == 2 and stdout == "" and len(err.strip().splitlines()) == 1, err
    phrase = {"symlink": "symbolic link", "fifo": "not a regular file", "input": "an input"}
    assert phrase.get(kind, "directory") in err
    assert target.read_text() == "keep me"
    assert not (tmp_path / "new").exists()
    if kind == "symlink":
        assert Path(out).is_symlink()
    if kind == "fifo":
        import stat

        assert stat.S_ISFIFO(os.lstat(out).st_mode)


def test_dev_null_is_not_replaced(cli_data, capsys, monkeypatch):
    """As root, os.replace would turn /dev/null into a regular file: refused up front."""
    fail_before_fit(monkeypatch)
    code, _, err = _cli(["fit", cli_data / "train.csv", "-o", "/dev/null", *CLI_FIT_ARGS], capsys)
    assert code == 2 and "not a regular file" in err
    import stat

    assert stat.S_ISCHR(Path("/dev/null").stat().st_mode)


def test_predict_refuses_to_overwrite_its_input(cli_data, tmp_path, capsys):
    model = tmp_path / "m.skops"
    assert _cli(["fit", cli_data / "train.csv", "-o", model, *CLI_FIT_ARGS], capsys)[0] == 0
    data = tmp_path / "x.csv"
    data.write_bytes((cli_data / "train.csv").read_bytes())
    os_link = tmp_path / "hard.csv"
    os_link.hardlink_to(data)
    for out in (data, os_link, model):
        before = data.read_bytes(), model.read_bytes()
        code, _, err = _cli(["predict", model, data, "-o", out], capsys)
        assert code == 2 and "an input" in err, err
        assert (data.read_bytes(), model.read_bytes()) == before


def test_unwritable_folder_refused_before_fit(cli_data, tmp_path, capsys, monkeypatch):
    import os

    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda p, m: False if Path(p) == locked else real_access(p, m)
    )
    fail_before_fit(monkeypatch)
    code, _, err = _cli(
        ["fit", cli_data / "train.csv", "-o", locked / "m.skops", *CLI_FIT_ARGS], capsys
    )
    assert code == 1 and "is not writable" in err and "m.skops" in err
