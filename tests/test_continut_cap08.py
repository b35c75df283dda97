"""Capitolul 08: structura notebook-ului (ca în celelalte capitole), exercițiile cu ciot și
verificare, numerele tipărite prin `curs_compilare.cifre`, terminologia ghidului, faptele din text
verificate pe versiunea instalată (și în sursa ei), afirmațiile greșite corectate (să nu revină),
verdictele tipărite de cod, nu scrise în text, și secțiunea nodului cu mai multe GPU-uri, care nu
tipărește nicio cifră inventată cât referința ei lipsește."""

import re
from pathlib import Path

import nbformat
import torch

from curs_compilare import cifre
from curs_compilare.capitole import cap08_distribuit as distribuit
from text_notebook import APELARE, FORMAT_INTERZIS, NOI, RADACINA, markdown, siruri_din_cod
from text_notebook import cod as _cod
from text_notebook import surse

CAPITOL = RADACINA / "notebooks" / "08_antrenare_distribuita.ipynb"
SOLUTIE = RADACINA / "solutions" / "08_antrenare_distribuita_solutii.ipynb"


def test_structura_ca_in_celelalte_capitole():
    celule = nbformat.read(CAPITOL, as_version=4).cells
    assert celule[0].source.startswith("# 08 · ")
    for fragment in ("**Durată estimată:**", "**Cerințe preliminare:**", "**Ce vei face:**", "08_antrenare_distribuita.ipynb"):
        assert fragment in celule[0].source
    text = markdown(CAPITOL)
    for titlu in ("## 1. ", "## 2. DDP sub `torch.compile`", "## 3. Compilarea care nu face nimic", "## 4. FSDP2",
                  "## 5. ", "## Exercițiul 1", "## Exercițiul 2", "## Exercițiul 3", "## Ce ai învățat"):
        assert titlu in text, titlu


def test_exercitiile_au_ciot_si_verificare():
    cod = _cod(CAPITOL)
    assert "from curs_compilare.exercitii import cap08 as verificari" in cod
    for numar, semnatura in ((1, "def pregateste(model, backend):"), (2, "def numar_grafuri(octeti, galeata_mb):"),
                             (3, "def pregateste_fsdp(model, retea, backend):")):
        assert semnatura in cod and f"verificari.exercitiul_{numar}(" in cod
    assert cod.count("raise NotImplementedError") == 3
    solutii = _cod(SOLUTIE)
    assert "raise NotImplementedError" not in solutii and solutii.count("assert rezultat, rezultat.mesaj") == 3


def test_ciotul_e_recunoscut_fara_sa_fie_rulat():
    from curs_compilare.exercitii import cap08

    import linecache

    spatiu = {}
    for indice, sursa in enumerate(surse(CAPITOL, "code")):
        if "raise NotImplementedError" in sursa:
            definitii = sursa.split("verificari.exercitiul_")[0]
            fisier = f"<celula {indice}>"  # ca IPython: sursa celulei, în linecache
            linecache.cache[fisier] = (len(definitii), None, definitii.splitlines(True), fisier)
            exec(compile(definitii, fisier, "exec"), spatiu)
    for nume in ("pregateste", "numar_grafuri", "pregateste_fsdp"):
        assert cap08._e_ciot(spatiu[nume]), nume

    def scrisa(model, backend):
        raise NotImplementedError("nu pe CPU")  # o excepție cu mesaj nu e ciotul

    assert not cap08._e_ciot(scrisa)


def test_numerele_tiparite_trec_prin_cifre():
    for cale in (CAPITOL, SOLUTIE):
        cod = _cod(cale)
        assert not FORMAT_INTERZIS.findall(cod), FORMAT_INTERZIS.findall(cod)
        assert "plt.show()" not in cod


def test_terminologia_si_vocea():
    for cale in (CAPITOL, SOLUTIE):
        text = markdown(cale) + "\n" + "\n".join(siruri_din_cod(cale))
        assert not NOI.findall(text) and not APELARE.findall(text)
        assert not re.search("[\u015f\u015e\u0163\u0162]", text)
        assert not re.search(r"\bvs\.?\b|\bscris de noi\b", text)
    text = markdown(CAPITOL)
    for termen in ("all-reduce", "găleți", "rang", "fragmentează", "rețea de dispozitive", "DTensor"):
        assert termen in text, termen


def test_faptele_din_text_pe_versiunea_instalata():
    text = markdown(CAPITOL)
    # Prima găleată: 1 MiB, constanta lui torch.distributed pe care o imită DDPOptimizer.
    assert torch.distributed._DEFAULT_FIRST_BUCKET_BYTES == 2**20 == distribuit.PRIMA_GALEATA_MB * 2**20
    assert "_DEFAULT_FIRST_BUCKET_BYTES" in text
    # „8 blocuri de câte 1 MiB”: un bloc de lățime 512 are puțin peste 1 MiB.
    assert 2**20 < distribuit.octeti_pe_strat(distribuit.ReteaBlocuri(512, 1))[0] < 1.01 * 2**20
    # Versiunile spuse în text sunt cele măsurate (testul plasării o verifică pe versiunea instalată).
    assert "n-a dat niciun graf al lui Dynamo cu torch 2.13.0 și a dat unul cu 2.14.1" in text
    # Autograd-ul compilat: API-ul privat numit în text există pe versiunea instalată.
    from torch._dynamo import compiled_autograd

    assert hasattr(compiled_autograd, "_enable") and "compiled_autograd._enable" in text
    assert hasattr(torch.distributed.fsdp, "fully_shard") and hasattr(torch.distributed.fsdp, "FSDPModule")
    assert hasattr(torch._dynamo.config, "error_on_recompile")


def test_referinta_nodului_cu_mai_multe_gpuuri_nu_inventeaza_cifre():
    text = markdown(CAPITOL)
    cod = _cod(CAPITOL)
    assert 'cifre.afiseaza_referinta("08.multi_gpu")' in cod
    are_cifre = any(c["cheie"].startswith("08.multi_gpu") for c in cifre.referinta().get("cifre", []))
    assert ("**încă nu există**" in text) != are_cifre, "fraza despre referință trebuie să spună adevărul"
    sectiunea = text.split("## 5. ", 1)[1].split("## Exercițiul 1", 1)[0]
    assert not re.search(r"\d+[,.]?\d*\s*(?:×|ms|%|GB/s)", sectiunea), "nicio cifră scrisă de mână în secțiunea 5"
    assert "benchmarks/capitolul08.py" in sectiunea and (RADACINA / "benchmarks" / "capitolul08.py").is_file()


def test_ce_urmeaza_are_legaturi():
    ce_am_invatat = markdown(CAPITOL).split("## Ce ai învățat", 1)[1]
    assert "docs.pytorch.org" in ce_am_invatat and "torchtitan" in ce_am_invatat


def _sursa_torch(relativa: str) -> str:
    return (Path(torch.__file__).parent / relativa).read_text(encoding="utf-8")


def _sectiunea_08_din_ghid() -> str:
    ghid = (RADACINA / "atelier" / "ghid_instructor.md").read_text(encoding="utf-8")
    return ghid.split("## Capitolul 08", 1)[1].split("\n## Capitolul 09", 1)[0]


def test_ddp_peste_compilare_e_taiat_de_ddpoptimizer():
    """`DDP(torch.compile(model))` NU dă un singur graf fără tăieturi: DDP marchează modulul activ
    cât cheamă modelul, iar Dynamo folosește DDPOptimizer cât există un DDP activ. Mecanismul, în
    sursa versiunii instalate (testul plasării îl măsoară în ranguri), și afirmația veche, dispărută
    din soluții și din ghidul instructorului."""
    distribuit_py = _sursa_torch("nn/parallel/distributed.py")
    assert "with self._inside_ddp_forward():" in distribuit_py and "_active_ddp_module = self" in distribuit_py
    convert = _sursa_torch("_dynamo/convert_frame.py")
    assert "DistributedDataParallel._get_active_ddp_module()" in convert and "DDPOptimizer(" in convert
    solutii = " ".join(markdown(SOLUTIE).split())
    ghid = " ".join(_sectiunea_08_din_ghid().split())
    for text in (solutii, ghid):
        assert "nu mai vede DDP" not in text and "un singur graf, fără suprapunere" not in text
        assert "dă un singur graf, fără tăieturile lui DDPOptimizer" not in text
        assert "_inside_ddp_forward" in text
    capitol = markdown(CAPITOL)
    assert "_inside_ddp_forward" in capitol and "torch/_dynamo/convert_frame.py" in capitol
    # Tabelul plasărilor are varianta, cu ambele numărători, calculate de unealtă în ranguri.
    assert "ReteaBlocuri: DDP(torch.compile(model))" in distribuit.VARIANTE_PLASARE
    cod = _cod(CAPITOL)
    assert "distribuit.arata_plasari(plasari)" in cod and "grafuri_sub_ddp(latime=LATIME, blocuri=BLOCURI, galeata_mb=1)" in cod
    assert "grafurile lui Dynamo" in capitol and "grafurile AOTAutograd" in capitol


def _celula_de_cod_dinainte(fragment: str) -> str:
    celule = nbformat.read(CAPITOL, as_version=4).cells
    indice = next(i for i, c in enumerate(celule) if c.cell_type == "markdown" and fragment in c.source)
    return next(c.source for c in reversed(celule[:indice]) if c.cell_type == "code")


def test_suprapunerea_e_spusa_de_cod_nu_de_text():
    """Celula de după graficul suprapunerii spunea „doar ultima găleată pleacă după calcul”, pe când
    referința CPU are 7 din 9 suprapuse cu DDPOptimizer: propoziția e acum tipărită de unealtă,
    din momentele măsurate, iar textul explică doar mecanismul, fără cifre."""
    text = markdown(CAPITOL)
    assert "doar ultima găleată" not in text and "aproape toate all-reduce-urile" not in text
    assert "distribuit.arata_suprapunerea(alese)" in _celula_de_cod_dinainte("Propozițiile de sub grafic")
    celula = next(c for c in surse(CAPITOL, "markdown") if "Propozițiile de sub grafic" in c)
    ce_citesti = celula.split("**Explorează.**")[0]
    assert not re.search(r"\d", ce_citesti.replace("2.1", "")), "nicio cifră scrisă de mână în interpretare"
    # Tabelul DDP: niciun număr de grafuri sau de all-reduce-uri scris de mână sub el.
    assert "grafurile (2)" not in text and "(un singur all-reduce)" not in text and "cu unul sau două" not in text


def test_python_reducer_spus_cum_e():
    """`python_reducer` nu e „calea recomandată din 2.6”: e marcat experimental, iar autograd-ul
    compilat nu merge cu reductorul C++ (testul rangurilor vede refuzul). Nu e „a treia” valoare a
    lui `optimize_ddp`. Secțiunea e opțională și spune ce cere un GPU."""
    text = markdown(CAPITOL)
    assert "recomandă" not in text and "A treia valoare" not in text
    assert "O altă valoare a opțiunii" in text
    assert '"python_reducer" (experimental)' in _sursa_torch("_dynamo/config.py")
    assert "experimental" in text and "reductorul C++" in text
    # optimize_ddp are mai mult de trei valori (plus True/False): „o altă valoare”, nu „a treia”.
    assert "python_reducer_without_compiled_forward" in _sursa_torch("_dynamo/config.py")
    assert "### 2.2 (Opțional)" in text
    # Trecerile lui Inductor numite în text există și sunt oprite implicit pe versiunea instalată.
    import torch._inductor.config as inductor

    assert inductor.reorder_for_compute_comm_overlap is False and inductor.bucket_all_reduces_fx == "none"
    assert "reorder_for_compute_comm_overlap" in text and "bucket_all_reduces_fx" in text
    assert "distribuit.arata_reductorul(reductor)" in _cod(CAPITOL)


def test_limita_de_recompilari_nu_e_pe_tacute():
    """Dynamo avertizează când atinge limita de recompilări; tăcerea e doar a rangurilor cursului,
    care coboară jurnalele lui Dynamo la ERROR."""
    text = markdown(CAPITOL)
    assert "pe tăcute" not in text
    assert "hit config.%s" in _sursa_torch("_dynamo/convert_frame.py") and "hit config.recompile_limit" in text
    import inspect

    assert "logging.ERROR" in inspect.getsource(distribuit._liniste_in_rang) and "ERROR" in text


def test_fara_englezeasca_tiparita_inaintea_romanei():
    """Textul lui PyTorch (gărzi căzute, erori) nu e tipărit singur: trece prin uneltele care pun
    întâi propoziția în română (`explica_garda`, `arata_ddp`, `arata_reductorul`)."""
    cod = _cod(CAPITOL)
    assert "garda căzută: {motiv}" not in cod and "motive: {" not in cod
    assert cod.count("distribuit.explica_garda(motiv)") == 2
    assert "m.eroare" not in cod and "[:90]" not in cod
