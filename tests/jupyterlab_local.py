"""Un JupyterLab local pentru testele care deschid notebook-uri în Chromium (prezentarea RISE,
capitolul 08 rulat ca de un cursant): pornit pe un port liber, cu un jeton, în profilul rapid,
oprit la ieșire."""

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

JETON = "jeton-test"


def port_liber() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def jupyterlab(dosar, *argumente, mediu: dict | None = None):
    """Pornește JupyterLab cu `dosar` ca rădăcină (plus `argumente`, opțiuni ale lui `jupyter lab`)
    și dă adresa lui; îl oprește la ieșire. Dacă nu pornește în 60 s, testul eșuează."""
    port = port_liber()
    comanda = [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
               f"--IdentityProvider.token={JETON}", f"--ServerApp.root_dir={dosar}", *argumente]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        comanda.append("--allow-root")
    server = subprocess.Popen(comanda, env={**os.environ, "CURS_PROFIL": "rapid", **(mediu or {})},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    adresa = f"http://127.0.0.1:{port}"
    try:
        termen = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{adresa}/api/status?token={JETON}", timeout=2)
                break
            except OSError:
                if time.monotonic() > termen or server.poll() is not None:
                    pytest.fail("JupyterLab n-a pornit în 60 s")
                time.sleep(0.5)
        yield adresa
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
