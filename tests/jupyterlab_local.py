"""Un JupyterLab local pentru testele care deschid notebook-uri în Chromium (prezentarea RISE,
capitolele 08–12 rulate ca de un cursant): pornit pe un port liber, cu un jeton, în profilul
rapid, oprit la ieșire; plus „Run All” pe un capitol, cu ce a tipărit."""

import contextlib
import os
import shutil
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


RADACINA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: Toate celulele de cod au rulat: niciun „[*]” și fiecare celulă are un număr.
TOATE_GATA = ("() => document.querySelectorAll('.jp-InputPrompt').length > 10 && "
              "![...document.querySelectorAll('.jp-InputPrompt')].some(e => e.textContent.includes('*'))"
              " && [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')].every(e => /\\[\\d+\\]/.test(e.textContent))")


@contextlib.contextmanager
def capitol_in_jupyterlab(tmp_path, nume: str):
    """JupyterLab pornit pe o copie a capitolului `nume` (din `notebooks/`), cu toate celulele
    desenate în pagină; dă adresa. Sare testul fără playwright sau fără Chromium."""
    from curs_compilare.instructor.fisa import chromium

    pytest.importorskip("playwright")
    if chromium() is None:
        pytest.skip("fără Chromium pe mașină")
    lucru = tmp_path / "lucru"
    lucru.mkdir()
    shutil.copy(os.path.join(RADACINA, "notebooks", nume), lucru / nume)
    # Toate celulele desenate în pagină (JupyterLab 4 le desenează implicit doar pe cele vizibile).
    setari = tmp_path / "setari" / "@jupyterlab" / "notebook-extension"
    setari.mkdir(parents=True)
    (setari / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}', encoding="utf-8")
    with jupyterlab(lucru, f"--LabApp.user_settings_dir={tmp_path / 'setari'}",
                    f"--LabApp.workspaces_dir={tmp_path / 'spatii'}", mediu={"CURS_RADACINA": RADACINA}) as adresa:
        yield adresa


@contextlib.contextmanager
def capitol_rulat(tmp_path, nume: str, limita_ms: int = 600000):
    """Scheletul comun al testelor capitolelor în JupyterLab: „Run All” pe capitolul `nume`, în Chromium,
    ca un cursant; verifică întâi că nicio celulă nu s-a oprit cu o eroare, apoi dă pagina și textul
    tuturor ieșirilor. Sare testul fără playwright sau fără Chromium; închide browserul și serverul."""
    from curs_compilare.instructor.fisa import chromium

    with capitol_in_jupyterlab(tmp_path, nume) as adresa:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
            try:
                pagina = browser.new_page(viewport={"width": 1280, "height": 900})
                iesiri, erori = ruleaza_tot(pagina, adresa, nume, limita_ms=limita_ms)
                assert erori == 0, iesiri[-3000:]
                yield pagina, iesiri
            finally:
                browser.close()


def ruleaza_tot(pagina, adresa: str, nume: str, limita_ms: int) -> tuple[str, int]:
    """Deschide capitolul în pagină, „Run → Run All Cells”, așteaptă să ruleze toate celulele și
    întoarce textul tuturor ieșirilor și numărul ieșirilor de eroare."""
    pagina.goto(f"{adresa}/lab/tree/{nume}?token={JETON}")
    pagina.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90000)
    pagina.wait_for_timeout(2000)
    pagina.click("text=Run", timeout=20000)
    pagina.click("text=Run All Cells", timeout=20000)
    pagina.wait_for_function(TOATE_GATA, timeout=limita_ms)
    pagina.wait_for_timeout(1500)
    iesiri = pagina.evaluate("() => [...document.querySelectorAll('.jp-OutputArea-output')].map(e => e.innerText).join('\\n')")
    erori = pagina.evaluate("() => document.querySelectorAll('.jp-OutputArea-output[data-mime-type=\"application/vnd.jupyter.error\"]').length")
    return iesiri, erori


def iesiri_care_incep_cu(pagina, inceput: str) -> str:
    """Textul ieșirilor care încep cu `inceput`, unite cu „|”: ce arată un explorator sub glisoare."""
    return pagina.evaluate("(inceput) => [...document.querySelectorAll('.jp-OutputArea-output')]"
                           ".map(e => e.innerText).filter(t => t.startsWith(inceput)).join('|')", inceput)


def glisor_dus_la_capat(pagina, inceput: str, ultimul: bool = False, asteptare_ms: int = 4000) -> tuple[str, str]:
    """Ca un cursant: dă clic pe mânerul primului glisor (sau al ultimului) al paginii și apasă End
    (glisorul ajunge la ultima opțiune). Întoarce textul ieșirilor care încep cu `inceput` dinainte
    și de după. Mânerul e `.noUi-handle` în ipywidgets 8 și `.ui-slider-handle` în 7."""
    manere = pagina.locator(".noUi-handle, .ui-slider-handle")
    maner = manere.last if ultimul else manere.first
    maner.wait_for(timeout=30000)
    inainte = iesiri_care_incep_cu(pagina, inceput)
    maner.scroll_into_view_if_needed()
    maner.click()
    pagina.keyboard.press("End")
    pagina.wait_for_timeout(asteptare_ms)
    return inainte, iesiri_care_incep_cu(pagina, inceput)
