"""Testele T4-ului simulat (`CURS_GPU_SIMULAT=T4`): descrierea mașinii, plafonul de memorie,
GPU-ul „mic” pentru Inductor și cum îl citesc celelalte module. Rulează pe procesor: GPU-ul real
(un H200) e prefăcut, prin `torch.cuda.is_available` și `torch.cuda.get_device_properties`."""

import sys
import types

import pytest
import torch
import torch._inductor.config as config_inductor
import torch._inductor.utils as utile_inductor

from curs_compilare import cifre, mediu, modele
from curs_compilare.capitole import cap06_modelul_intreg as antrenare
from curs_compilare.capitole import cap05_cache as cache_compilare
from curs_compilare.capitole import cap05_reglare as reglare
from curs_compilare.exercitii import cap05

H200_MEMORIE = 150_031_826_944  # cât raportează un H200 (139,7 GiB)


class ProprietatiH200:
    name = "NVIDIA H200"
    major, minor = 9, 0
    multi_processor_count = 132
    total_memory = H200_MEMORIE
    shared_memory_per_block_optin = 227 * 1024


@pytest.fixture
def gpu_prefacut(monkeypatch):
    """Un H200 prefăcut; întoarce lista apelurilor lui `set_per_process_memory_fraction`."""
    apeluri = []
    monkeypatch.delenv(mediu.VARIABILA_GPU_SIMULAT, raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i=0: ProprietatiH200())
    monkeypatch.setattr(torch.cuda, "set_per_process_memory_fraction", lambda f, d=None: apeluri.append((f, d)))
    original = utile_inductor.is_big_gpu
    optiuni = (config_inductor.max_autotune_gemm_backends, config_inductor.max_autotune_conv_backends)
    mediu._anuleaza_simularea()
    yield apeluri
    mediu._anuleaza_simularea()
    assert utile_inductor.is_big_gpu is original, "simularea n-a pus la loc is_big_gpu"
    assert (config_inductor.max_autotune_gemm_backends, config_inductor.max_autotune_conv_backends) == optiuni


@pytest.fixture
def fara_simulare_ramasa(monkeypatch):
    monkeypatch.delenv(mediu.VARIABILA_GPU_SIMULAT, raising=False)
    mediu._anuleaza_simularea()
    yield
    mediu._anuleaza_simularea()


def _proprietati_inductor_mari(monkeypatch):
    """Ce vede `is_big_gpu` (original) despre dispozitiv: 132 de SM, ca un H200."""
    proprietati = types.SimpleNamespace(multi_processor_count=132, major=9)
    monkeypatch.setattr(utile_inductor, "DeviceProperties",
                        types.SimpleNamespace(create=lambda dispozitiv: proprietati))


def test_t4_simulat_descrie_un_t4(gpu_prefacut, monkeypatch):
    monkeypatch.setenv(mediu.VARIABILA_GPU_SIMULAT, "T4")
    m = mediu.detecteaza_mediul()
    assert m.are_gpu and m.e_simulat and m.gpu_simulat == "T4"
    assert m.nume_gpu == "Tesla T4 (simulat pe NVIDIA H200)"
    assert m.gpu_real == "NVIDIA H200"
    assert m.capabilitate == (7, 5) and m.numar_sm == 40
    assert m.memorie_gpu_gib == pytest.approx(14.74, abs=0.01)
    assert m.memorie_gpu_reala_gib == pytest.approx(H200_MEMORIE / 2**30)
    assert m.bf16_nativ is False and m.gemm_autotune_posibil is False
    assert m.memorie_partajata_bloc == 64 * 1024


def test_fara_variabila_gpu_real_nu_e_simulat(gpu_prefacut):
    m = mediu.detecteaza_mediul()
    assert not m.e_simulat and m.nume_gpu == "NVIDIA H200"
    assert m.capabilitate == (9, 0) and m.numar_sm == 132 and m.bf16_nativ and m.gemm_autotune_posibil
    assert m.memorie_partajata_bloc == 227 * 1024
    assert gpu_prefacut == []
    assert not getattr(utile_inductor.is_big_gpu, "_curs_gpu_simulat", False)
    assert "simulat" not in m.rezumat()


def test_plafonul_de_memorie_e_al_unui_t4(gpu_prefacut, monkeypatch):
    monkeypatch.setenv(mediu.VARIABILA_GPU_SIMULAT, "t4")  # nu contează majusculele
    mediu.detecteaza_mediul()
    assert len(gpu_prefacut) == 1
    fractie, dispozitiv = gpu_prefacut[0]
    assert isinstance(fractie, float) and dispozitiv == 0
    assert fractie == pytest.approx(15095 * 2**20 / H200_MEMORIE)
    assert fractie * H200_MEMORIE == pytest.approx(mediu.PROFILURI_GPU_SIMULAT["T4"].memorie_octeti)


def test_plafonul_lasa_loc_contextului_cuda(gpu_prefacut, monkeypatch):
    """Ca pe un T4, unde contextul CUDA ocupă din aceiași 15 095 MiB: ce e ocupat pe GPU în
    afara alocatorului (aici 600 MiB) se scade din plafon."""
    context = 600 * 2**20
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda i=0: (H200_MEMORIE - context, H200_MEMORIE))
    monkeypatch.setattr(torch.cuda, "memory_reserved", lambda i=0: 0)
    monkeypatch.setenv(mediu.VARIABILA_GPU_SIMULAT, "T4")
    mediu.detecteaza_mediul()
    (fractie, _), = gpu_prefacut
    assert fractie * H200_MEMORIE == pytest.approx(mediu.PROFILURI_GPU_SIMULAT["T4"].memorie_octeti - context)
    assert mediu._SIMULARE_APLICATA["ocupat_in_afara_octeti"] == context


def test_inductor_vede_un_gpu_mic(gpu_prefacut, monkeypatch, caplog):
    _proprietati_inductor_mari(monkeypatch)
    from torch._inductor.ir import FixedLayout

    asezare = FixedLayout(torch.device("cuda", 0), torch.float16, [64, 64])
    # Înainte: un GPU cu 132 de SM e „mare”, iar șabloanele Triton sunt permise.
    assert utile_inductor.is_big_gpu(0) is True
    assert utile_inductor._use_template_for_gpu(asezare, [torch.float16]) is True
    assert utile_inductor._use_autotune_backend("TRITON")

    # Un modul încărcat deja, care a importat funcția după nume, trebuie să primească înlocuitorul.
    modul = types.ModuleType("torch._inductor._modul_de_proba")
    modul.is_big_gpu = utile_inductor.is_big_gpu
    monkeypatch.setitem(sys.modules, modul.__name__, modul)

    monkeypatch.setenv(mediu.VARIABILA_GPU_SIMULAT, "T4")
    mediu.detecteaza_mediul()
    with caplog.at_level("WARNING", logger=utile_inductor.log.name):
        assert utile_inductor.is_big_gpu(0) is False
        assert utile_inductor.is_big_gpu(torch.device("cuda", 0)) is False
        # Locul din care Inductor o caută (șabloanele Triton, CUTLASS, CK) vede GPU-ul mic.
        assert utile_inductor._use_template_for_gpu(asezare, [torch.float16]) is False
    assert caplog.text.count("Not enough SMs to use max_autotune_gemm mode") == 1  # o dată, ca pe un T4
    assert modul.is_big_gpu is utile_inductor.is_big_gpu
    # Opțiunile: fără șabloane, cu ATen (și CPP, pentru procesor) păstrate.
    assert not utile_inductor._use_autotune_backend("TRITON")
    assert utile_inductor._use_autotune_backend("ATEN")
    assert "TRITON" not in config_inductor.max_autotune_gemm_backends.split(",")
    assert "CPP" in config_inductor.max_autotune_gemm_backends.split(",")
    assert config_inductor.max_autotune_conv_backends == "ATEN"


def test_simularea_se_aplica_o_singura_data(gpu_prefacut, monkeypatch):
    monkeypatch.setenv(mediu.VARIABILA_GPU_SIMULAT, "T4")
    original = utile_inductor.is_big_gpu
    primul = mediu.detecteaza_mediul()
    inlocuitor = utile_inductor.is_big_gpu
    optiuni = config_inductor.max_autotune_gemm_backends
    for _ in range(3):
        assert mediu.detecteaza_mediul() == primul
    assert len(gpu_prefacut) == 1
    assert utile_inductor.is_big_gpu is inlocuitor and inlocuitor.__wrapped__ is original
    assert config_inductor.max_autotune_gemm_backends == optiuni
    # Înlocuitorul pus a doua oară peste el însuși nu se învelește de două ori.
    stare = mediu._gpu_mic_pentru_inductor(mediu.PROFILURI_GPU_SIMULAT["T4"])
    assert stare["is_big_gpu"] is original
    utile_inductor.is_big_gpu = inlocuitor
    # O dată aplicată, simularea ține cât procesul, chiar dacă variabila dispare.
    monkeypatch.delenv(mediu.VARIABILA_GPU_SIMULAT)
    assert mediu.detecteaza_mediul().e_simulat


def test_rezumatul_spune_ce_e_simulat(gpu_prefacut, monkeypatch):
    monkeypatch.setenv(mediu.VARIABILA_GPU_SIMULAT, "T4")
    text = mediu.detecteaza_mediul().rezumat()
    assert "Tesla T4 (simulat pe NVIDIA H200)" in text
    assert "profil simulat (CURS_GPU_SIMULAT=T4)" in text
    assert "40 de multiprocesoare" in text and "capabilitate 7.5" in text
    da, nu = (r for r in text.splitlines() if "Sunt ale unui T4" in r), (r for r in text.splitlines() if "NU sunt ale" in r)
    da, nu = next(da), next(nu)
    for ce in ("plafonul de memorie", "14,7 GiB", "float16", "șabloanelor GEMM", "ATen"):
        assert ce in da, ce
    for ce in ("debitul", "latența", "timpii de compilare", "NVIDIA H200"):
        assert ce in nu, ce
    assert cifre.probleme_de_format(text) == []  # validarea ar pica un notebook care îl tipărește
    assert not any(c in text for c in "\u015f\u0163\u015e\u0162")


def test_fara_gpu_variabila_e_ignorata_cu_o_observatie(fara_simulare_ramasa, monkeypatch):
    apeluri = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.cuda, "set_per_process_memory_fraction", lambda *a: apeluri.append(a))
    monkeypatch.setenv(mediu.VARIABILA_GPU_SIMULAT, "T4")
    original = utile_inductor.is_big_gpu
    m = mediu.detecteaza_mediul()
    assert m.dispozitiv == "cpu" and not m.e_simulat
    assert any("CURS_GPU_SIMULAT=T4 e ignorată" in o and "n-are niciunul" in o for o in m.observatii)
    assert "CURS_GPU_SIMULAT=T4 e ignorată" in m.rezumat()
    assert apeluri == [] and utile_inductor.is_big_gpu is original and mediu._SIMULARE_APLICATA is None


@pytest.mark.parametrize("are_gpu", [True, False])
def test_un_profil_necunoscut_e_semnalat_cu_profilurile_cunoscute(gpu_prefacut, monkeypatch, are_gpu):
    if not are_gpu:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setenv(mediu.VARIABILA_GPU_SIMULAT, "A100")
    m = mediu.detecteaza_mediul()
    assert not m.e_simulat and gpu_prefacut == []
    nota = next(o for o in m.observatii if "CURS_GPU_SIMULAT=A100" in o)
    assert "nu e un profil" in nota and "profilurile cunoscute: T4" in nota
    assert nota in m.rezumat()
    if are_gpu:
        assert m.nume_gpu == "NVIDIA H200"


def test_un_gpu_real_mai_mic_decat_t4_pastreaza_toata_memoria(gpu_prefacut, monkeypatch):
    class Mic(ProprietatiH200):
        name, total_memory = "NVIDIA RTX 3070", 8 * 2**30

    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i=0: Mic())
    monkeypatch.setenv(mediu.VARIABILA_GPU_SIMULAT, "T4")
    m = mediu.detecteaza_mediul()
    assert gpu_prefacut == [(1.0, 0)]
    assert m.memorie_gpu_gib == pytest.approx(8.0)
    assert any("mai puțin decât un Tesla T4" in o for o in m.observatii)


def test_modulele_citesc_gpu_ul_din_mediu(gpu_prefacut, monkeypatch):
    """Pe H200-ul prefăcut: bfloat16 și loturile mari; cu T4-ul simulat: float16, loturile mici
    și limita de memorie partajată a unui T4."""
    monkeypatch.setenv(mediu.VARIABILA_PROFIL, "complet")
    assert modele.precizie_pentru_mediu() == torch.bfloat16
    assert reglare.tip_produs_cu_epilog() == torch.bfloat16
    assert modele.configuratie_pentru_mediu().marime_lot == 16
    assert antrenare.configuratie_capitol().vocabular == 50304
    assert antrenare.configuratie_regionala().dim_model == 2048
    assert cap05.limita_memorie_partajata()[0] == 227 * 1024

    monkeypatch.setenv(mediu.VARIABILA_GPU_SIMULAT, "T4")
    assert modele.precizie_pentru_mediu() == torch.float16
    assert reglare.tip_produs_cu_epilog() == torch.float16
    assert modele.configuratie_pentru_mediu().marime_lot == 4
    # capitolul 06: cu 4 secvențe pe lot, ciclul prin 50 304 de jetoane nu s-ar învăța
    capitol = antrenare.configuratie_capitol()
    assert (capitol.marime_lot, capitol.vocabular) == (4, antrenare.VOCABULAR_GPU_MIC)
    regionala = antrenare.configuratie_regionala()
    assert (regionala.marime_lot, regionala.dim_model) == (4, 1024)
    limita, unde = cap05.limita_memorie_partajata()
    assert limita == 64 * 1024 and "Tesla T4" in unde
    assert len(gpu_prefacut) == 1  # aplicată o dată, oricâte module au citit mediul


def test_procesul_nou_al_cache_ului_aplica_aceeasi_simulare():
    sursa = cache_compilare._SCRIPT
    assert "detecteaza_mediul()" in sursa
    assert sursa.index("detecteaza_mediul()") < sursa.index("torch.compile(")
