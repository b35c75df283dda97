"""Kernel-urile calde ale testelor (`tests/nuclee_calde.py`): un kernel copiat din serverul cald e, pentru
codul din notebook, ca unul pornit obișnuit (comanda, dosarul, `sys.path`, mediul, numele procesului,
procesele pornite din el), are deja importurile grele făcute, se întrerupe și se oprește ca un kernel
obișnuit, scrie erorile unde i s-a cerut, iar o cerere pe care copia n-ar respecta-o pornește kernel-ul
obișnuit."""

import functools
import json
import os
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="serverul de copii: doar pe Linux")

#: Ce tipărește kernel-ul despre el, înaintea oricărui import din celulă.
DESPRE_KERNEL = (
    "import sys, os, json, multiprocessing as mp\n"
    "print(json.dumps({'preincarcat': 'torch._inductor.compile_fx' in sys.modules, 'cale': sys.path,"
    " 'argv': sys.argv[1:2], 'dosar': os.getcwd(), 'nume': __name__, 'proces': mp.current_process().name,"
    " 'parinte': mp.parent_process() is None, 'grup': os.getpgid(0) == os.getpid(), 'mediu': sorted(os.environ)}))"
)


@pytest.fixture(scope="module")
def nuclee_calde():
    """Modulul încărcat de `conftest.py` (același server de copii ca notebook-urile testate), sau unul
    încărcat aici, dacă rularea nu folosește kernel-uri calde."""
    if "nuclee_calde" in sys.modules:
        return sys.modules["nuclee_calde"]
    import importlib.util

    specificatie = importlib.util.spec_from_file_location("nuclee_calde", os.path.join(os.path.dirname(__file__), "nuclee_calde.py"))
    modul = importlib.util.module_from_spec(specificatie)
    specificatie.loader.exec_module(modul)
    return modul


@pytest.fixture
def porneste(nuclee_calde, monkeypatch):
    """Pornește un kernel ca nbval (mediul procesului de teste, dosarul dat), prin lansatorul cald;
    întoarce (managerul, clientul). Kernel-urile pornite se opresc la sfârșitul testului."""
    from jupyter_client.launcher import launch_kernel
    from jupyter_client.provisioning import local_provisioner
    from nbval.kernel import CURRENT_ENV_KERNEL_NAME, start_new_kernel

    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setattr(local_provisioner, "launch_kernel", functools.partial(nuclee_calde.lanseaza, lansare_obisnuita=launch_kernel))
    pornite = []

    def _porneste(dosar, **argumente):
        km, kc = start_new_kernel(kernel_name=CURRENT_ENV_KERNEL_NAME, cwd=str(dosar), **argumente)
        pornite.append((km, kc))
        return km, kc

    yield _porneste
    for km, kc in pornite:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def _executa(kc, cod: str, intrerupe=None) -> str:
    """Execută `cod` și întoarce ce a tipărit (și numele excepției, dacă a aruncat una)."""
    mesaj = kc.execute(cod)
    if intrerupe:
        time.sleep(1)
        intrerupe()
    iesire = []
    while True:
        m = kc.get_iopub_msg(timeout=60)
        if m["parent_header"].get("msg_id") != mesaj:
            continue
        if m["msg_type"] == "stream":
            iesire.append(m["content"]["text"])
        elif m["msg_type"] == "error":
            iesire.append("EROARE " + m["content"]["ename"])
        elif m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
            return "".join(iesire)


def test_kernelul_copiat_e_ca_unul_nou_dar_cu_importurile_facute(nuclee_calde, porneste, tmp_path, monkeypatch):
    km, kc = porneste(tmp_path)
    diferite = sorted(k for k in set(os.environ) | set(nuclee_calde._stare["mediu"])
                      if os.environ.get(k) != nuclee_calde._stare["mediu"].get(k))
    assert type(km.provisioner.process).__name__ == "ProcesCald", f"mediul diferă de al serverului: {diferite}"
    cald = json.loads(_executa(kc, DESPRE_KERNEL))
    # Altă variabilă de mediu decât cele cu care a pornit serverul: kernel-ul obișnuit, un interpretor nou.
    monkeypatch.setenv("CURS_TEST_NUCLEE_CALDE", "1")
    km_nou, kc_nou = porneste(tmp_path)
    assert type(km_nou.provisioner.process).__name__ == "Popen"
    nou = json.loads(_executa(kc_nou, DESPRE_KERNEL))
    assert cald.pop("preincarcat") and not nou.pop("preincarcat")
    nou["mediu"].remove("CURS_TEST_NUCLEE_CALDE")
    assert cald == nou
    assert cald["dosar"] == str(tmp_path) and cald["nume"] == "__main__"
    assert cald["proces"] == "MainProcess" and cald["parinte"] and cald["grup"]


def test_procesele_pornite_din_kernel_si_erorile_unde_s_au_cerut(porneste, tmp_path):
    erori = tmp_path / "erori.txt"
    with open(erori, "w") as fisier:
        km, kc = porneste(tmp_path, stderr=fisier)
        cod = ("import multiprocessing as mp, subprocess, sys, os\n"
               "with mp.get_context('fork').Pool(2) as p: print(p.map(abs, [-1, -2]))\n"
               "print(subprocess.run([sys.executable, '-c', 'print(7)'], capture_output=True, text=True).stdout.strip())\n"
               "os.write(2, b'pe stderr-ul kernelului\\n')")
        assert _executa(kc, cod).split() == ["[1,", "2]", "7"]
    assert "pe stderr-ul kernelului" in erori.read_text()


def test_intreruperea_si_oprirea_ca_la_un_kernel_obisnuit(porneste, tmp_path):
    km, kc = porneste(tmp_path)
    proces = km.provisioner.process
    assert km.provisioner.pgid == proces.pid and proces.poll() is None
    cod = "import time\ntry:\n    time.sleep(60)\nexcept KeyboardInterrupt:\n    print('întrerupt')"
    assert _executa(kc, cod, intrerupe=km.interrupt_kernel).strip() == "întrerupt"
    kc.stop_channels()
    km.shutdown_kernel(now=True)
    assert proces.poll() is not None and not km.is_alive()
    with pytest.raises(ProcessLookupError):
        os.kill(proces.pid, 0)


def test_ce_se_copiaza_si_ce_nu(nuclee_calde):
    comanda = [sys.executable, "-m", "ipykernel_launcher", "-f", "conexiune.json"]
    mediu = dict(nuclee_calde._stare["mediu"])
    assert nuclee_calde._se_poate_copia(comanda, {**mediu, "JPY_PARENT_PID": "1", "PYTEST_CURRENT_TEST": "x",
                                                  "TORCHINDUCTOR_CACHE_DIR": "/alt/cache",
                                                  "_TORCHINDUCTOR_PYOBJECT_TENSOR_DATA_PTR": "1"})
    assert not nuclee_calde._se_poate_copia(comanda, {**mediu, "TORCH_LOGS": "+dynamo"})
    assert not nuclee_calde._se_poate_copia(comanda, {k: v for k, v in mediu.items() if k != "PATH"})
    assert not nuclee_calde._se_poate_copia(["/bin/sh", *comanda[1:]], mediu)  # alt interpretor
    assert not nuclee_calde._se_poate_copia([sys.executable, "-m", "alt_kernel", "-f", "c.json"], mediu)


def test_conftest_porneste_kernelurile_notebookurilor_calde():
    """În rularea testelor pe Linux fără GPU, nbval primește kernel-uri calde (altfel testul se sare)."""
    import conftest
    from jupyter_client.provisioning import local_provisioner

    if not conftest.NUCLEE_CALDE:
        pytest.skip("rularea aceasta pornește kernel-uri obișnuite (GPU, alt sistem sau CURS_NUCLEE_CALDE=0)")
    lansator = local_provisioner.launch_kernel
    assert isinstance(lansator, functools.partial) and lansator.func is sys.modules["nuclee_calde"].lanseaza
