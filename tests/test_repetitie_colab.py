"""Repetiția drumului de pe Colab (`validare --colab-simulat`) și memoria GPU a unui notebook,
citită din `nvidia-smi` (aici prefăcut: testele rulează pe procesor)."""

import json
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from curs_compilare.instructor import depozit
from curs_compilare.instructor import validare

RADACINA = Path(__file__).resolve().parent.parent


def test_celula_de_pregatire_urmeaza_drumul_de_pe_colab():
    colab = validare.RepetitieColab(adresa="file:///tmp/depozit", dosar="/tmp/x/content/curs")
    nb = new_notebook(cells=[new_markdown_cell("# titlu"), new_code_cell(depozit.celula_pregatire()), new_code_cell("1")])
    assert colab.pregateste_notebook(nb) == 1
    sursa = nb.cells[1].source
    assert sursa.startswith("import sys, types")
    assert 'sys.modules.setdefault("google.colab"' in sursa
    assert depozit.ADRESA not in sursa and "/content/curs\"" not in sursa.replace("/tmp/x/content/curs", "")
    assert '"file:///tmp/depozit"' in sursa and sursa.count("/tmp/x/content/curs") == depozit.celula_pregatire().count("/content/curs")
    assert nb.cells[2].source == "1"
    # Celula rescrisă rămâne cod Python valid (fără liniile magice %matplotlib).
    compile("\n".join(r for r in sursa.splitlines() if not r.startswith("%")), "<celula>", "exec")


def test_o_celula_de_pregatire_schimbata_opreste_repetitia():
    colab = validare.RepetitieColab(adresa="file:///tmp/d", dosar="/tmp/c")
    with pytest.raises(ValueError, match="/content/curs"):
        colab.rescrie("# Pregătirea mediului\nimport torch")


@pytest.mark.skipif(shutil.which("git") is None, reason="git lipsește")
def test_depozitul_local_se_cloneaza_ca_adresa_publica(tmp_path):
    curs = tmp_path / "curs"
    (curs / "curs_compilare").mkdir(parents=True)
    (curs / "curs_compilare" / "__init__.py").write_text("")
    (curs / ".venv").mkdir()
    (curs / ".venv" / "mare").write_text("nu se copiază")
    colab = validare.depozit_local_pentru_colab(curs, tmp_path / "repetitie")
    assert colab.adresa.startswith("file://") and colab.dosar.endswith("content/curs")
    clona = tmp_path / "clona"
    subprocess.run(["git", "clone", "-q", "--depth", "1", colab.adresa, str(clona)], check=True)
    assert (clona / "curs_compilare" / "__init__.py").is_file()
    assert not (clona / ".venv").exists()


def test_toate_notebookurile_au_celula_pe_care_o_rescrie_repetitia():
    colab = validare.RepetitieColab(adresa="file:///tmp/d", dosar="/tmp/c")
    for cale in sorted(RADACINA.glob("notebooks/*.ipynb")) + sorted(RADACINA.glob("solutions/*.ipynb")):
        assert colab.pregateste_notebook(nbformat.read(cale, as_version=4)) == 1, cale.name


def test_memoria_gpu_a_proceselor_notebookului(monkeypatch):
    """Suma memoriei proceselor din arborele kernel-ului; celelalte procese nu contează."""
    memorie = validare._MemorieGPU()
    memorie.pid_kernel(4242)
    randuri = {"--query-compute-apps=pid,used_memory": ["4242, 1000", "999, 70000"],
               "--query-gpu=memory.used": ["71500"]}
    monkeypatch.setattr(memorie, "_nvidia_smi", lambda *a: randuri[a[0]])
    assert memorie._ocupat_de_notebook() == 1000.0
    # Fără procesul kernel-ului în listă (un container care ascunde PID-urile): nimic.
    randuri["--query-compute-apps=pid,used_memory"] = ["999, 70000"]
    assert memorie._ocupat_de_notebook() is None
    assert memorie._ocupat_pe_gpu() == 71500.0


def test_fara_nvidia_smi_nu_se_raporteaza_memorie(tmp_path, monkeypatch):
    monkeypatch.setattr(validare.shutil, "which", lambda nume: None)
    cale = tmp_path / "mic.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("print(1)")]), cale)
    rezultat = validare.executa_notebook(cale, tmp_path / "executate", limita_celula=60)
    assert rezultat["trecut"] and "memorie_gpu_maxima_mib" not in rezultat
    assert rezultat["prima_linie_eroare"] is None


@pytest.mark.parametrize("fel, pe_tot_gpu", [(validare.MEMORIE_PE_PROCESE, False), (validare.MEMORIE_PE_TOT_GPU, True)])
def test_raportul_spune_cum_s_a_masurat_memoria_gpu(fel, pe_tot_gpu):
    mediu = {"gpu": "NVIDIA H200", "capabilitate": "9.0", "numar_sm": 132, "python": "3.12", "torch": "2.11",
             "triton": "3.6", "profil": "complet", "nuclee": 16, "dispozitiv": "cuda"}
    rand = {"cale": "notebooks/00_a.ipynb", "trecut": True, "secunde": 3.0, "eroare": None, "cifre": [],
            "memorie_gpu_maxima_mib": 2048, "memorie_gpu_masurata_pe": fel}
    text = validare._raport_markdown({"data": "2026-12-04", "secunde_total": 3.0, "mediu": mediu,
                                      "notebookuri": [rand], "cifre": []})
    assert "| `notebooks/00_a.ipynb` | trecut | 3 s | 2,00 GiB |" in text
    assert ("memoria ocupată pe tot GPU-ul" in text) == pe_tot_gpu


def test_un_runtime_nou_cloneaza_in_alt_dosar(tmp_path):
    colab = validare.RepetitieColab(adresa="file:///tmp/depozit", dosar="/tmp/x/content/curs")
    nou = colab.runtime_nou(tmp_path / "runtime_03")
    assert nou.adresa == colab.adresa
    assert nou.dosar == str((tmp_path / "runtime_03" / "content" / "curs").resolve())
    nb = new_notebook(cells=[new_code_cell(depozit.celula_pregatire())])
    nou.pregateste_notebook(nb)
    assert nou.dosar in nb.cells[0].source and "/tmp/x/content/curs" not in nb.cells[0].source


def test_cache_urile_proaspete_se_vad_in_kernel_si_apoi_revin(tmp_path, monkeypatch):
    """Un runtime nou pornește cu cache-urile de compilare goale: kernel-ul pornit în
    `cache_gol()` (cel folosit de validare pentru fiecare notebook) le vede, iar după bloc
    variabilele revin cum erau."""
    import os

    from curs_compilare.masurare_compilare import cache_gol

    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", "/vechi")
    monkeypatch.delenv("TRITON_CACHE_DIR", raising=False)
    cale = tmp_path / "mic.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell(
        "import os\nprint(os.environ['TORCHINDUCTOR_CACHE_DIR'], os.environ['TRITON_CACHE_DIR'])")]), cale)
    with cache_gol():
        inductor, triton = os.environ["TORCHINDUCTOR_CACHE_DIR"], os.environ["TRITON_CACHE_DIR"]
        assert inductor != "/vechi" and os.listdir(inductor) == []
        assert triton == os.path.join(inductor, "triton")
        rezultat = validare.executa_notebook(cale, tmp_path / "executate", limita_celula=60)
    assert rezultat["trecut"]
    executat = nbformat.read(tmp_path / "executate" / "mic.ipynb", as_version=4)
    assert executat.cells[0].outputs[0]["text"].split() == [inductor, triton]
    assert os.environ["TORCHINDUCTOR_CACHE_DIR"] == "/vechi" and "TRITON_CACHE_DIR" not in os.environ


@pytest.mark.parametrize("inainte, dupa, asteptat", [
    ({"editabil": True, "dosar": "/curs"}, {"editabil": False, "dosar": None},
     ["install", "-q", "--no-deps", "--no-build-isolation", "-e", "/curs"]),
    (None, {"editabil": False, "dosar": None}, ["uninstall", "-y", "-q", "curs-compilare"]),
    ({"editabil": True, "dosar": "/curs"}, {"editabil": True, "dosar": "/curs"}, None),
    ({"editabil": False, "dosar": None}, {"editabil": False, "dosar": None}, None),
])
def test_instalarea_revine_cum_era_dupa_repetitie(monkeypatch, inainte, dupa, asteptat):
    """Repetiția instalează pachetul cu pip, ca pe Colab; după ea, mediul cursantului
    (instalarea editabilă din `make lab`) trebuie să fie la fel ca înainte."""
    stari = iter([inainte, dupa])
    monkeypatch.setattr(validare, "instalarea_pachetului", lambda: next(stari))
    comenzi = []
    monkeypatch.setattr(validare.subprocess, "run",
                        lambda c, **k: comenzi.append(c[3:]) or subprocess.CompletedProcess(c, 0))
    with validare.instalarea_pastrata():
        pass
    assert comenzi == ([asteptat] if asteptat else [])


def test_instalarea_de_acum_e_gasita():
    stare = validare.instalarea_pachetului()
    assert stare is None or set(stare) == {"editabil", "dosar"}


_TORCH_FALS = """\
import sys, time, types
torch = types.ModuleType("torch")
torch.cuda = types.SimpleNamespace(is_initialized=lambda: True, max_memory_reserved=lambda d=None: 0)
ocupat = {"octeti": 3 * 2**30}
torch.cuda.memory_reserved = lambda d=None: ocupat["octeti"]
sys.modules["torch"] = torch
time.sleep(1.0)
ocupat["octeti"] = 2**30
print("gata")
"""


def test_memoria_pytorch_se_citeste_in_kernel_si_celulele_ascunse_dispar(tmp_path):
    """Celulele ascunse urmăresc memoria rezervată de PyTorch din kernel (aici, un modul torch
    fals, care rezervă 3 GiB o secundă, apoi 1 GiB): maximul e cel văzut de fir, nu cel de la
    sfârșit; notebook-ul executat are doar celulele lui, numerotate de la 1."""
    cale = tmp_path / "mic.ipynb"
    nbformat.write(new_notebook(cells=[new_markdown_cell("# titlu"), new_code_cell("print('a')"),
                                       new_code_cell(_TORCH_FALS)]), cale)
    rezultat = validare.executa_notebook(cale, tmp_path / "executate", limita_celula=60, masoara_memoria_pytorch=True)
    assert rezultat["trecut"], rezultat["eroare"]
    assert rezultat["memorie_gpu_pytorch_maxima_mib"] == 3072
    executat = nbformat.read(tmp_path / "executate" / "mic.ipynb", as_version=4)
    assert [c.cell_type for c in executat.cells] == ["markdown", "code", "code"]
    assert [c.execution_count for c in executat.cells[1:]] == [1, 2]
    assert executat.cells[2].outputs[0]["text"] == "gata\n"
    assert not any(validare.MARCAJ_MEMORIE_PYTORCH in str(c) for c in executat.cells)


def test_fara_cuda_pornit_memoria_pytorch_lipseste(tmp_path):
    cale = tmp_path / "mic.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("print(1)")]), cale)
    rezultat = validare.executa_notebook(cale, tmp_path / "executate", limita_celula=60, masoara_memoria_pytorch=True)
    assert rezultat["trecut"] and "memorie_gpu_pytorch_maxima_mib" not in rezultat
    assert len(nbformat.read(tmp_path / "executate" / "mic.ipynb", as_version=4).cells) == 1


def test_un_notebook_esuat_pierde_doar_cifra_memoriei(tmp_path):
    cale = tmp_path / "mic.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("raise ValueError('stricat')"), new_code_cell("print(2)")]), cale)
    rezultat = validare.executa_notebook(cale, tmp_path / "executate", limita_celula=60, masoara_memoria_pytorch=True)
    assert not rezultat["trecut"] and rezultat["prima_linie_eroare"] == "ValueError: stricat"
    assert "memorie_gpu_pytorch_maxima_mib" not in rezultat
    executat = nbformat.read(tmp_path / "executate" / "mic.ipynb", as_version=4)
    assert len(executat.cells) == 2 and executat.cells[0].execution_count == 1


def _raport(cale, secunde, nuclee, **memorie):
    mediu = {"gpu": "NVIDIA H200", "capabilitate": "9.0", "numar_sm": 132, "python": "3.12", "torch": "2.11",
             "triton": "3.6", "profil": "complet", "nuclee": 16, "dispozitiv": "cuda",
             "profil_colab": {"nuclee": 2, "gpu_simulat": "T4", "limita_ram_gib": 12.0, "nuclee_alese": nuclee}}
    rand = {"cale": cale, "trecut": True, "secunde": secunde, "eroare": None, **memorie}
    return {"data": f"2026-12-05T10:0{len(cale) % 10}:00", "secunde_total": secunde, "mediu": mediu,
            "notebookuri": [rand], "cifre": [{"cheie": cale, "notebook": cale, "descriere": "d", "valoare": 1.0,
                                               "unitate": "s"}]}


def test_rapoartele_rulate_deodata_se_unesc_fara_memoria_de_pe_tot_gpu_ul(tmp_path):
    a = _raport("notebooks/06_b.ipynb", 300.0, [2, 3], memorie_gpu_maxima_mib=9000,
                memorie_gpu_masurata_pe=validare.MEMORIE_PE_TOT_GPU, memorie_gpu_pytorch_maxima_mib=4096)
    b = _raport("notebooks/00_a.ipynb", 20.0, [4, 5], memorie_gpu_maxima_mib=7000,
                memorie_gpu_masurata_pe=validare.MEMORIE_PE_TOT_GPU, memorie_gpu_pytorch_maxima_mib=1024)
    date = validare.uneste_rapoarte([a, b])
    assert [r["cale"] for r in date["notebookuri"]] == ["notebooks/00_a.ipynb", "notebooks/06_b.ipynb"]
    assert all("memorie_gpu_maxima_mib" not in r for r in date["notebookuri"])
    assert date["secunde_total"] == 320.0 and len(date["cifre"]) == 2
    assert date["unite"] == {"rapoarte": 2, "nuclee_alese": [[2, 3], [4, 5]]}
    text = validare._raport_markdown(date)
    assert "| `notebooks/00_a.ipynb` | trecut | 20 s | 1,00 GiB |" in text
    assert "2 validări rulate deodată, fiecare pe nucleele ei (2, 3; 4, 5)" in text
    # Din linia de comandă: raportul și graficul, fără să execute nimic.
    fisiere = []
    for i, r in enumerate((a, b)):
        fisiere.append(tmp_path / f"r{i}.json")
        fisiere[-1].write_text(json.dumps(r), encoding="utf-8")
    assert validare.main(["--uneste", *map(str, fisiere), "--iesire", str(tmp_path / "unit")]) == 0
    assert (tmp_path / "unit" / "durate.png").is_file()
    assert json.loads((tmp_path / "unit" / "rezultate.json").read_text(encoding="utf-8"))["unite"]["rapoarte"] == 2


def test_un_singur_raport_isi_pastreaza_memoria_gpu():
    a = _raport("notebooks/00_a.ipynb", 20.0, [0, 1], memorie_gpu_maxima_mib=7000,
                memorie_gpu_masurata_pe=validare.MEMORIE_PE_TOT_GPU)
    assert validare.uneste_rapoarte([a])["notebookuri"][0]["memorie_gpu_maxima_mib"] == 7000
    with pytest.raises(ValueError, match="niciun raport"):
        validare.uneste_rapoarte([])


def test_in_profilul_colab_fiecare_notebook_porneste_cu_cache_ul_gol(tmp_path, monkeypatch):
    """Ca într-un runtime Colab nou la fiecare capitol: două notebook-uri validate în profilul
    Colab (fără repetiția clonării) văd dosare de cache diferite, goale la pornire."""
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "cache_comun"))
    cod = "import os\nd = os.environ['TORCHINDUCTOR_CACHE_DIR']\nprint(d, len(os.listdir(d)))"
    cai = []
    for nume in ("a", "b"):
        cai.append(tmp_path / f"{nume}.ipynb")
        nbformat.write(new_notebook(cells=[new_code_cell(cod)]), cai[-1])
    assert validare.main(["--profil-colab", "--iesire", str(tmp_path / "v"), *map(str, cai)]) == 0
    vazute = [nbformat.read(tmp_path / "v" / "executate" / c.name, as_version=4).cells[0].outputs[0]["text"].split()
              for c in cai]
    assert vazute[0][0] != vazute[1][0] and str(tmp_path / "cache_comun") not in (vazute[0][0], vazute[1][0])
    assert [v[1] for v in vazute] == ["0", "0"]
