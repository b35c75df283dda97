"""Adresa cursului (un singur loc) și comanda de validare a instructorului."""

import json
import os
import platform
import shutil
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from curs_compilare import cifre
from curs_compilare.instructor import depozit
from curs_compilare.instructor import validare


def test_insigna_si_adresa_colab_decurg_din_adresa():
    insigna = depozit.insigna_colab("notebooks/00_x.ipynb")
    proprietar = depozit.ADRESA.removeprefix("https://github.com/")
    assert f"colab.research.google.com/github/{proprietar}/blob/main/notebooks/00_x.ipynb" in insigna
    assert depozit.ADRESA in depozit.celula_pregatire()


def test_rescrie_adrese_vechi():
    vechi = (
        "[x](https://colab.research.google.com/github/vechi/depozit/blob/main/notebooks/a.ipynb)\n"
        "git clone https://github.com/vechi/depozit.git\n"
        "vezi https://github.com/pytorch/pytorch/issues/1"
    )
    nou = depozit.rescrie_adrese(vechi)
    assert depozit.adrese_gasite(nou) == {depozit.ADRESA}
    assert "https://github.com/pytorch/pytorch/issues/1" in nou  # alte legături rămân


def test_sincronizeaza_repara_un_notebook(tmp_path):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "solutions").mkdir()
    nb = new_notebook(cells=[
        new_markdown_cell("# T\n[![Open](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/a/b/blob/main/x.ipynb)"),
        new_code_cell(depozit.MARCAJ_PREGATIRE + "\nvechi"),
    ])
    cale = tmp_path / "notebooks" / "01_t.ipynb"
    nbformat.write(nb, cale)
    assert depozit.sincronizeaza(tmp_path, doar_verifica=True) == ["notebooks/01_t.ipynb"]
    depozit.sincronizeaza(tmp_path)
    assert depozit.sincronizeaza(tmp_path, doar_verifica=True) == []
    nou = nbformat.read(cale, as_version=4)
    assert depozit.adresa_colab("notebooks/01_t.ipynb") in nou.cells[0].source
    assert nou.cells[1].source == depozit.celula_pregatire()


def test_validarea_executa_si_raporteaza(tmp_path, monkeypatch):
    bun = new_notebook(cells=[new_code_cell(
        "from curs_compilare import cifre\ncifre.inregistreaza('99.test', 42.0, 'GB/s', 'o cifră de test')"
    )])
    rau = new_notebook(cells=[new_code_cell("raise ValueError('intenționat')")])
    nbformat.write(bun, tmp_path / "bun.ipynb")
    nbformat.write(rau, tmp_path / "rau.ipynb")
    monkeypatch.chdir(tmp_path)
    cod = validare.main(["bun.ipynb", "rau.ipynb", "--iesire", "raport", "--limita-celula", "120"])
    assert cod == 1  # un notebook a eșuat
    date = json.loads(Path("raport/rezultate.json").read_text())
    stari = {Path(n["cale"]).name: n["trecut"] for n in date["notebookuri"]}
    assert stari == {"bun.ipynb": True, "rau.ipynb": False}
    assert date["cifre"][0]["valoare"] == 42.0
    raport = Path("raport/raport.md").read_text()
    assert "o cifră de test" in raport and "EȘUAT" in raport and "intenționat" in raport
    assert Path("raport/durate.png").stat().st_size > 1000
    assert Path("raport/executate/bun.ipynb").is_file()
    shutil.rmtree("raport")


def test_kernelul_vede_pachetul_procesului_care_il_executa(tmp_path, monkeypatch):
    """Pornit din dosarul cursului, fără pachetul instalat, notebook-ul tot îl găsește: kernel-ul
    primește dosarul pachetului în fața lui PYTHONPATH; după execuție, variabila e ca înainte."""
    monkeypatch.setenv("PYTHONPATH", "/un/dosar/oarecare")
    nb = new_notebook(cells=[new_code_cell(
        "import os, curs_compilare\n"
        "from pathlib import Path\n"
        f"assert os.environ['PYTHONPATH'].split(os.pathsep) == [{str(validare.DOSAR_PACHET)!r}, '/un/dosar/oarecare']\n"
        f"assert Path(curs_compilare.__file__).resolve().parent.parent == Path({str(validare.DOSAR_PACHET)!r})"
    )])
    nbformat.write(nb, tmp_path / "pachet.ipynb")
    rezultat = validare.executa_notebook(tmp_path / "pachet.ipynb", tmp_path / "executate", limita_celula=120)
    assert rezultat["trecut"], rezultat["eroare"]
    assert os.environ["PYTHONPATH"] == "/un/dosar/oarecare"


def test_validarea_pica_un_notebook_cu_o_concluzie_contrazisa(tmp_path, monkeypatch):
    nb = new_notebook(cells=[new_code_cell("print('compilatul e de 0,9 ori mai rapid')")])
    nbformat.write(nb, tmp_path / "contrazis.ipynb")
    monkeypatch.chdir(tmp_path)
    assert validare.main(["contrazis.ipynb", "--iesire", "raport", "--limita-celula", "120"]) == 1
    date = json.loads(Path("raport/rezultate.json").read_text())
    assert "de 0,9 ori mai rapid" in date["notebookuri"][0]["eroare"]


def _raport(*cifre):
    return {"cifre": [dict(zip(("cheie", "valoare", "depinde_de_procesor"), c), unitate="ms", descriere=c[0]) for c in cifre]}


def test_compararea_a_doua_rulari(tmp_path, capsys):
    unu = _raport(("a", 10.0, False), ("b", 10.0, True), ("c", 10.0, False), ("doar_in_unu", 1.0, False))
    doi = _raport(("a", 11.0, False), ("b", 20.0, True), ("c", 12.0, False))
    randuri = {r["cheie"]: r for r in validare.compara_rapoarte(unu, doi)}
    assert set(randuri) == {"a", "b", "c"}
    assert randuri["a"]["verdict"] == "la fel" and randuri["a"]["factor"] == pytest.approx(1.1)
    assert randuri["b"]["verdict"] == "depinde de procesor"
    assert randuri["c"]["verdict"] == "diferă"
    (tmp_path / "1.json").write_text(json.dumps(unu))
    (tmp_path / "2.json").write_text(json.dumps(doi))
    assert validare.main(["--compara", str(tmp_path / "1.json"), str(tmp_path / "2.json")]) == 1
    iesire = capsys.readouterr().out
    assert "3 cifre comune: 1 la fel, 1 diferă, iar 1 e peste prag, dar depinde de procesor." in iesire
    assert "raport 1,1×" in iesire  # diferența, scrisă în tabel
    assert "Doar în prima rulare (1):" in iesire and "- `doar_in_unu`: doar_in_unu" in iesire
    assert "Doar în a doua rulare" not in iesire
    assert validare.main(["--compara", str(tmp_path / "1.json"), str(tmp_path / "1.json")]) == 0
    iesire = capsys.readouterr().out
    assert "aceleași chei" in iesire and "Doar în" not in iesire


def test_cheile_necomune_spun_ce_s_a_pierdut_si_ce_s_a_adaugat():
    unu = _raport(("a", 1.0, False), ("vechi", 2.0, False), ("din_script", 3.0, False))
    unu["cifre"][2]["sursa"] = "benchmarks/capitolul06.py"
    doi = _raport(("nou", 4.0, False), ("a", 1.0, False))
    doar_unu, doar_doi = validare.chei_necomune(unu, doi)
    assert [c["cheie"] for c in doar_unu] == ["vechi", "din_script"]
    assert [c["cheie"] for c in doar_doi] == ["nou"]
    text = validare._tabel_comparatie(validare.compara_rapoarte(unu, doi), 0.15, necomune=(doar_unu, doar_doi))
    assert "- `din_script`: din_script; măsurată de `benchmarks/capitolul06.py`" in text
    assert "Doar în a doua rulare (1):" in text and "- `nou`: nou" in text
    assert validare.chei_necomune(unu, unu) == ([], [])


def _cifra(cheie, valoare, unitate, depinde=False, **altele):
    return {"cheie": cheie, "valoare": valoare, "unitate": unitate, "descriere": f"cifra {cheie}",
            "interval": None, "depinde_de_procesor": depinde, **altele}


def test_procentele_se_compara_prin_diferenta_in_puncte_procentuale(tmp_path, capsys):
    unu = {"cifre": [
        _cifra("06.regional_diferenta_pas", -0.5, "%"),     # își schimbă semnul: 0,69 puncte
        _cifra("01.ocupare", 98.2, "%"),
        _cifra("04.ocupare_mica", 1.0, "%"),                 # raportul ar fi 2×, diferența e un punct
        _cifra("03.din_plafon", 99.7, "%"),
        _cifra("03.ocupare_procesor", 10.0, "%", True),
    ]}
    doi = {"cifre": [
        _cifra("06.regional_diferenta_pas", 0.19, "%"),
        _cifra("01.ocupare", 101.5, "%"),
        _cifra("04.ocupare_mica", 2.0, "%"),
        _cifra("03.din_plafon", 90.0, "%"),                  # 9,7 puncte: peste pragul de 5
        _cifra("03.ocupare_procesor", 30.0, "%", True),
    ]}
    randuri = {r["cheie"]: r for r in validare.compara_rapoarte(unu, doi)}
    semn = randuri["06.regional_diferenta_pas"]
    assert semn["fel"] == "puncte" and semn["verdict"] == "la fel" and semn["factor"] is None
    assert semn["diferenta"] == pytest.approx(0.69) and semn["text_diferenta"] == "0,69 puncte procentuale"
    assert randuri["01.ocupare"]["verdict"] == "la fel"
    assert randuri["04.ocupare_mica"]["verdict"] == "la fel" and randuri["04.ocupare_mica"]["text_diferenta"] == "1 punct procentual"
    assert randuri["03.din_plafon"]["verdict"] == "diferă"
    assert randuri["03.ocupare_procesor"]["verdict"] == "depinde de procesor"
    assert validare.compara_rapoarte(unu, doi, prag_puncte=10)[3]["verdict"] == "la fel"
    (tmp_path / "1.json").write_text(json.dumps(unu))
    (tmp_path / "2.json").write_text(json.dumps(doi))
    assert validare.main(["--compara", str(tmp_path / "1.json"), str(tmp_path / "2.json")]) == 1
    iesire = capsys.readouterr().out
    assert "| cifra 06.regional_diferenta_pas | -0,5% | 0,19% | 0,69 puncte procentuale | la fel |" in iesire
    assert "5 puncte procentuale" in iesire  # pragul, spus deasupra tabelului
    # cu pragul dat din linia de comandă, cele 9,7 puncte trec
    assert validare.main(["--compara", str(tmp_path / "1.json"), str(tmp_path / "2.json"), "--prag-puncte", "10"]) == 0
    assert "10 puncte procentuale" in capsys.readouterr().out


def test_procentul_de_pe_referinta_care_isi_schimba_semnul_nu_difera():
    """Cazul din rapoartele reale: diferența dintre doi pași, −0,5% pe o mașină, +0,19% pe alta."""
    unu = {"cifre": [_cifra("06.regional_diferenta_pas", -0.5, "%")]}
    doi = {"cifre": [_cifra("06.regional_diferenta_pas", 0.19, "%")]}
    assert [r["verdict"] for r in validare.compara_rapoarte(unu, doi)] == ["la fel"]
    doi = {"cifre": [_cifra("06.regional_diferenta_pas", 8.0, "%")]}  # 8,5 puncte: o schimbare reală
    assert [r["verdict"] for r in validare.compara_rapoarte(unu, doi)] == ["diferă"]


def test_zerourile_numaratorile_mici_si_semnele_opuse():
    unu = {"cifre": [
        _cifra("03.kerneluri_compilat", 1.0, "kernel-uri"),
        _cifra("03.kerneluri_eager", 4.0, "kernel-uri"),
        _cifra("02.recompilari", 0.0, "recompilări"),
        _cifra("02.recompilari_altundeva", 0.0, "recompilări"),
        _cifra("06.kerneluri_mari", 94.0, "kernel-uri"),
        _cifra("07.timp_zero", 0.0, "ms"),
        _cifra("07.timp_nul", 0.0, "ms"),
        _cifra("07.fara_unitate", -0.2, ""),
        _cifra("00.prag", 422.0, "apeluri", True),
    ]}
    doi = {"cifre": [
        _cifra("03.kerneluri_compilat", 2.0, "kernel-uri"),   # 1 față de 2: un kernel în plus, nu 2×
        _cifra("03.kerneluri_eager", 4.0, "kernel-uri"),
        _cifra("02.recompilari", 1.0, "recompilări"),          # 0 față de 1: fără ∞
        _cifra("02.recompilari_altundeva", 0.0, "recompilări"),
        _cifra("06.kerneluri_mari", 100.0, "kernel-uri"),     # numărătoare mare: prin raport (1,06×)
        _cifra("07.timp_zero", 0.0, "ms"),
        _cifra("07.timp_nul", 1.0, "ms"),
        _cifra("07.fara_unitate", 0.2, ""),                   # semne opuse, fără unitate procentuală
        _cifra("00.prag", 514.0, "apeluri", True),
    ]}
    r = {x["cheie"]: x for x in validare.compara_rapoarte(unu, doi)}
    assert r["03.kerneluri_compilat"]["fel"] == "numărare" and r["03.kerneluri_compilat"]["verdict"] == "diferă"
    assert r["03.kerneluri_compilat"]["text_diferenta"] == "1 kernel" and r["03.kerneluri_compilat"]["factor"] is None
    assert r["03.kerneluri_eager"]["verdict"] == "la fel" and r["03.kerneluri_eager"]["text_diferenta"] == "niciuna"
    assert r["02.recompilari"]["verdict"] == "diferă" and r["02.recompilari"]["text_diferenta"] == "1 recompilare"
    assert r["02.recompilari_altundeva"]["verdict"] == "la fel"
    assert r["06.kerneluri_mari"]["fel"] == "raport" and r["06.kerneluri_mari"]["verdict"] == "la fel"
    assert r["07.timp_zero"]["verdict"] == "la fel" and r["07.timp_zero"]["factor"] == 1.0
    assert r["07.timp_nul"]["verdict"] == "diferă" and "0" in r["07.timp_nul"]["text_diferenta"]
    assert r["07.fara_unitate"]["verdict"] == "diferă" and r["07.fara_unitate"]["text_diferenta"] == "semne opuse"
    assert r["00.prag"]["fel"] == "raport" and r["00.prag"]["verdict"] == "depinde de procesor"
    tabel = validare._tabel_comparatie(list(r.values()), validare.PRAG_DIFERENTA)
    assert "∞" not in tabel and "inf" not in tabel


def test_o_cifra_cu_prag_absolut_propriu_se_compara_prin_diferenta(tmp_path, monkeypatch):
    fisier = tmp_path / "cifre.jsonl"
    monkeypatch.setenv(cifre.VARIABILA_FISIER, str(fisier))
    cifre.inregistreaza("06.abatere", 0.45, "", "diferența maximă a pierderilor", prag_absolut=0.5)
    unu = {"cifre": validare.citeste_cifre_inregistrate(fisier)}
    assert unu["cifre"][0]["prag_absolut"] == 0.5
    doi = {"cifre": [dict(unu["cifre"][0], valoare=0.16)]}
    (rand,) = validare.compara_rapoarte(unu, doi)
    assert rand["fel"] == "absolut" and rand["verdict"] == "la fel"  # prin raport, 2,8× ar fi „diferă”
    assert rand["text_diferenta"] == "0,29 (prag: 0,5)"
    doi["cifre"][0]["valoare"] = 1.2
    assert validare.compara_rapoarte(unu, doi)[0]["verdict"] == "diferă"


def test_unitatile_diferite_nu_se_compara():
    unu = {"cifre": [_cifra("a", 1.0, "s")]}
    doi = {"cifre": [_cifra("a", 1000.0, "ms")]}
    (rand,) = validare.compara_rapoarte(unu, doi)
    assert rand["verdict"] == "diferă" and "unități diferite" in rand["text_diferenta"]


def _raport_de_referinta():
    return {
        "data": "2025-01-01T00:00:00",
        "secunde_total": 10.0,
        "mediu": {"dispozitiv": "cuda", "gpu": "NVIDIA H200", "capabilitate": "9.0", "numar_sm": 132,
                  "python": "3.12", "torch": "2.11", "triton": "3.6", "profil": "complet"},
        "notebookuri": [{"cale": "notebooks/06_modelul_intreg.ipynb", "trecut": True, "secunde": 10.0, "eroare": None}],
        "cifre": [
            _cifra("05.ceva_s", 1.0, "s", notebook="notebooks/05_x.ipynb"),
            _cifra("06.moduri_antrenare_default_ms", 11.8, "ms", notebook="notebooks/06_modelul_intreg.ipynb"),
            _cifra("06.regional_diferenta_pas", -0.5, "%", notebook="notebooks/06_modelul_intreg.ipynb"),
            _cifra("07.altceva", 2.0, "×", notebook="notebooks/07_x.ipynb"),
        ],
    }


def test_adauga_cifre_inlocuieste_si_eticheteaza_cu_sursa():
    vechi = _raport_de_referinta()
    noi = [
        _cifra("06.regional_diferenta_pas", 0.19, "%"),
        _cifra("06.moduri_antrenare_max-autotune_ms", 10.5, "ms"),
        _cifra("08.capitol_nou", 3.0, "s"),
    ]
    date = validare.adauga_cifre(vechi, noi, "benchmarks/capitolul06.py --max-autotune",
                                 notebook="notebooks/06_modelul_intreg.ipynb", data="2025-02-02T10:00:00")
    assert vechi["cifre"][2]["valoare"] == -0.5  # raportul vechi rămâne neatins
    chei = [c["cheie"] for c in date["cifre"]]
    assert chei == ["05.ceva_s", "06.moduri_antrenare_default_ms", "06.regional_diferenta_pas",
                    "06.moduri_antrenare_max-autotune_ms", "07.altceva", "08.capitol_nou"]
    inlocuita = date["cifre"][2]
    assert inlocuita["valoare"] == 0.19 and inlocuita["sursa"] == "benchmarks/capitolul06.py --max-autotune"
    assert inlocuita["notebook"] == "notebooks/06_modelul_intreg.ipynb"
    assert "sursa" not in date["cifre"][1]  # cifrele notebook-ului rămân ale lui
    (sursa,) = date["surse_adaugate"]
    assert sursa["chei"] == [c["cheie"] for c in noi] and sursa["inlocuite"] == ["06.regional_diferenta_pas"]
    # aceeași sursă, adăugată din nou: un singur rând în surse, aceleași chei, fără dubluri
    din_nou = validare.adauga_cifre(date, noi[:1], "benchmarks/capitolul06.py --max-autotune")
    assert len(din_nou["surse_adaugate"]) == 1 and [c["cheie"] for c in din_nou["cifre"]] == chei
    assert "notebook" not in din_nou["cifre"][2]  # fără --notebook, cifra nu mai pretinde un notebook


def test_completeaza_pastreaza_cifrele_adaugate_din_scripturi():
    vechi = validare.adauga_cifre(_raport_de_referinta(), [_cifra("06.max_autotune_s", 337.0, "s")], "benchmarks/capitolul06.py",
                                  notebook="notebooks/06_modelul_intreg.ipynb")
    nou = {**_raport_de_referinta(), "notebookuri": vechi["notebookuri"],
           "cifre": [_cifra("06.moduri_antrenare_default_ms", 12.0, "ms", notebook="notebooks/06_modelul_intreg.ipynb")]}
    date = validare.completeaza(vechi, nou)
    chei = {c["cheie"]: c for c in date["cifre"]}
    assert "06.max_autotune_s" in chei and chei["06.max_autotune_s"]["sursa"] == "benchmarks/capitolul06.py"
    assert "06.regional_diferenta_pas" not in chei  # a notebook-ului reexecutat, care nu a mai înregistrat-o
    assert chei["06.moduri_antrenare_default_ms"]["valoare"] == 12.0
    assert date["surse_adaugate"] == vechi["surse_adaugate"]


def test_adauga_cifre_din_linia_de_comanda(tmp_path, monkeypatch, capsys):
    dosar = tmp_path / "referinta"
    dosar.mkdir()
    (dosar / "rezultate.json").write_text(json.dumps(_raport_de_referinta(), ensure_ascii=False))
    fisier = tmp_path / "cifre.jsonl"
    monkeypatch.setenv(cifre.VARIABILA_FISIER, str(fisier))
    cifre.inregistreaza("06.regional_diferenta_pas", 0.19, "%", "pasul regional față de modelul întreg")
    cifre.inregistreaza("06.max_autotune_pas_ms", 10.5, "ms", "antrenare, max-autotune: timpul pe pas")
    monkeypatch.delenv(cifre.VARIABILA_FISIER)
    sursa = "benchmarks/capitolul06.py --max-autotune"
    cod = validare.main(["--adauga-cifre", str(fisier), "--sursa", sursa, "--notebook", "notebooks/06_modelul_intreg.ipynb",
                         "--rezultate", str(dosar / "rezultate.json")])
    assert cod == 0
    assert "Am adăugat 2 cifre" in capsys.readouterr().out
    date = json.loads((dosar / "rezultate.json").read_text())
    adaugate = [c for c in date["cifre"] if c.get("sursa") == sursa]
    assert [c["cheie"] for c in adaugate] == ["06.regional_diferenta_pas", "06.max_autotune_pas_ms"]
    raport = (dosar / "raport.md").read_text()
    assert f"| antrenare, max-autotune: timpul pe pas | 10,5 ms | `{sursa}` (arătată în `06_modelul_intreg.ipynb`) |" in raport
    assert "## Cifre măsurate separat, de scripturi" in raport and "`06.max_autotune_pas_ms`" in raport
    assert "| cifra 05.ceva_s | 1 s | `05_x.ipynb` |" in raport
    assert (dosar / "durate.png").is_file()  # lipsea: se desenează din notebook-urile raportului

    # afiseaza_referinta arată sursa unei cifre adăugate
    monkeypatch.setattr(cifre, "referinta", lambda: date)
    cifre.afiseaza_referinta("06.max_autotune")
    assert f"10,5 ms [măsurată separat, cu {sursa}]" in capsys.readouterr().out


def test_adauga_cifre_explica_in_romana_ce_lipseste(tmp_path, capsys):
    rezultate = tmp_path / "rezultate.json"
    rezultate.write_text(json.dumps(_raport_de_referinta()))
    gol = tmp_path / "gol.jsonl"
    gol.write_text("")
    stricat = tmp_path / "stricat.jsonl"
    stricat.write_text('{"cheie": "06.x", "valoare": 1.0}\n')
    nu_json = tmp_path / "nu_json.jsonl"
    nu_json.write_text("nu e json\n")
    assert validare.main(["--adauga-cifre", str(gol), "--rezultate", str(rezultate)]) == 2
    assert "cere și --sursa" in capsys.readouterr().err
    assert validare.main(["--adauga-cifre", str(gol), "--sursa", "s", "--rezultate", str(rezultate)]) == 2
    assert "nu conține nicio cifră" in capsys.readouterr().err
    assert validare.main(["--adauga-cifre", str(stricat), "--sursa", "s", "--rezultate", str(rezultate)]) == 2
    assert "îi lipsește „unitate”, „descriere”" in capsys.readouterr().err
    assert validare.main(["--adauga-cifre", str(nu_json), "--sursa", "s", "--rezultate", str(rezultate)]) == 2
    assert "rândul 1" in capsys.readouterr().err
    assert validare.main(["--adauga-cifre", str(tmp_path / "lipsa.jsonl"), "--sursa", "s", "--rezultate", str(rezultate)]) == 2
    assert "nu găsesc fișierul de cifre" in capsys.readouterr().err
    assert json.loads(rezultate.read_text()) == _raport_de_referinta()  # neatins


def test_raportul_numeste_procesorul(tmp_path):
    """Două validări pe GPU-uri la fel pot avea procesoare diferite: raportul îl numește."""
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R)   Platinum 8480+\n"
                       "processor\t: 1\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\n", encoding="utf-8")
    assert validare.model_procesor(cpuinfo) == "Intel(R) Xeon(R) Platinum 8480+"
    fara_model = tmp_path / "fara_model"
    fara_model.write_text("processor\t: 0\n", encoding="utf-8")
    # fără rândul „model name” sau fără fișier: ce spune platform.processor(), poate nimic
    assert validare.model_procesor(fara_model) == (platform.processor() or None)
    assert validare.model_procesor(tmp_path / "lipsa") == (platform.processor() or None)
    date = {"data": "2026-12-05T00:00:00", "secunde_total": 1.0, "notebookuri": [], "cifre": [],
            "mediu": {"gpu": "NVIDIA H200", "capabilitate": "9.0", "numar_sm": 132, "python": "3.12",
                      "torch": "2.11", "triton": "3.6", "profil": "complet", "nuclee": 16,
                      "model_procesor": "Intel(R) Xeon(R) Platinum 8480+", "dispozitiv": "cuda"}}
    assert "- procesorul: Intel(R) Xeon(R) Platinum 8480+, 16 nuclee" in validare._raport_markdown(date)
    del date["mediu"]["model_procesor"]  # rapoartele mai vechi nu-l au
    assert "- procesorul: 16 nuclee" in validare._raport_markdown(date)
